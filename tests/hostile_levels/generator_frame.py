"""Climbs from a generator's frame to the worker's globals."""
# expect-stage: static_policy
# expect-error: attribute 'gi_frame'
def build(level, rng):
    gen = (x for x in [1])
    outer = gen.gi_frame.f_back.f_globals
    outer["os"].system("touch /tmp/dicode_hostile_pwned_frame")
