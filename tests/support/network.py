"""Record (and refuse) network attempts, instead of timing how fast a call fails offline.

A call that "fails fast" offline is one that never tries the network: :func:`network_attempts`
counts every name lookup and connection to a host other than loopback while it is active, and
refuses it at once (``OSError``, as on a machine without network). :data:`AUDIT_HOOK` is the same
record for a fresh interpreter: prepend it to the child's code and it prints ``NETWORK: [...]``
when the child exits.
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any, Iterator

import pytest

LOOPBACK = {"127.0.0.1", "::1", "localhost", ""}


def _host(address: Any) -> str:
    return str(address[0]) if isinstance(address, tuple) and address else str(address)


@contextlib.contextmanager
def network_attempts() -> Iterator[list[str]]:
    """The hosts that code inside the block tried to reach (refused), loopback left alone."""
    attempts: list[str] = []
    real_getaddrinfo, real_connect, real_connect_ex = (
        socket.getaddrinfo,
        socket.socket.connect,
        socket.socket.connect_ex,
    )

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if _host(host) not in LOOPBACK:
            attempts.append(f"lookup {host}")
            raise socket.gaierror(socket.EAI_NONAME, "network refused by the test")
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6) and _host(address) not in LOOPBACK:
            attempts.append(f"connect {address}")
            raise OSError("network refused by the test")
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6) and _host(address) not in LOOPBACK:
            attempts.append(f"connect {address}")
            return 101  # ENETUNREACH
        return real_connect_ex(self, address)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket, "getaddrinfo", getaddrinfo)
        mp.setattr(socket.socket, "connect", connect)
        mp.setattr(socket.socket, "connect_ex", connect_ex)
        yield attempts


#: Python source for a child interpreter: records lookups and connections (audit events) and
#: prints them as ``NETWORK: [...]`` at exit.
AUDIT_HOOK = """
import atexit, sys
_network = []
def _audit(event, args):
    if event == "socket.getaddrinfo" and str(args[0]) not in {"127.0.0.1", "::1", "localhost", ""}:
        _network.append(f"lookup {args[0]}")
    elif event == "socket.connect" and isinstance(args[1], tuple) and str(args[1][0]) not in {"127.0.0.1", "::1"}:
        _network.append(f"connect {args[1]}")
sys.addaudithook(_audit)
atexit.register(lambda: print("NETWORK:", _network))
"""
