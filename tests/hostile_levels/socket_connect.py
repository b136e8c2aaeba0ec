"""Connects to a socket the test listens on."""
# expect-stage: static_policy
# expect-error: import of 'socket' is not allowed
import socket


def build(level, rng):
    socket.create_connection(("127.0.0.1", 47613)).sendall(b"hello")
