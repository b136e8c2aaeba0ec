"""Calls, through ctypes (loaded in the worker for its own seccomp set-up), system calls the old
deny-list let through: signals queued to other processes, file mode, times and extended
attributes, a mount-tree handle, the kernel log, the clock, modules, kexec and reboot. Every
argument is harmless or invalid, so a call that was let through still changes nothing."""
# expect-stage: static_policy
# expect-error: private or internal attribute '__class__'
# wall: rejected
# wall-error: every call refused
def find_os():
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "_wrap_close":
            return cls.__init__.__globals__
    raise RuntimeError("os not found")


# name: (x86_64, generic), arguments
CALLS = {
    "rt_sigqueueinfo": ((129, 138), (1, 0, 0)),
    "rt_tgsigqueueinfo": ((297, 240), (1, 1, 0, 0)),
    "fchmodat2": ((452, 452), (-100, 0, 0o777, 0)),
    "utimensat": ((280, 88), (-100, 0, 0, 0)),
    "setxattr": ((188, 5), (0, 0, 0, 0, 0)),
    "open_tree_attr": ((467, 467), (-100, 0, 0, 0, 0)),
    "syslog": ((103, 116), (10, 0, 0)),
    "clock_settime": ((227, 112), (0, 0)),
    "init_module": ((175, 105), (0, 0, 0)),
    "kexec_load": ((246, 104), (0, 0, 0, 0)),
    "reboot": ((169, 142), (0, 0, 0, 0)),
    "getrandom": ((318, 278), (0, 0, 0)),
    "kill": ((62, 129), (1, 0)),
}


def build(level, rng):
    os = find_os()
    modules = os["sys"].modules
    ctypes = modules["ctypes"]
    which = 0 if modules["platform"].machine() == "x86_64" else 1
    libc = ctypes.CDLL(None, use_errno=True)
    let_through = []
    for name, (numbers, args) in CALLS.items():
        ctypes.set_errno(0)
        answer = libc.syscall(numbers[which], *args)
        if answer != -1 or ctypes.get_errno() != 1:  # EPERM
            let_through.append(f"{name}={answer}/{ctypes.get_errno()}")
    if let_through:
        raise ValueError(f"let through: {let_through}")
    raise ValueError("every call refused")
