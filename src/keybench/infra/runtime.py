"""Process set-up that must happen before any gRPC client exists.

Locust runs on gevent: gRPC must be made cooperative first, or streaming reads hang and
unary calls block the event loop. Against the Spanner emulator, multiplexed sessions for
read-write transactions make concurrent transactions fail instead of being retried.

gRPC's fork support must be off before grpc is imported: with it on, grpcio 1.81+ aborts
a few percent of the children that subprocess.Popen forks (epoll_wait EBADF before exec;
grpc/grpc#43055), which here means emulators and `keybench` commands dying at start.
keybench creates every client after any fork, so it needs no fork support.
"""

import os

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

from gevent import monkey

monkey.patch_all()

import grpc.experimental.gevent as grpc_gevent  # noqa: E402

_prepared = False


def prepare() -> None:
    global _prepared
    if _prepared:
        return
    grpc_gevent.init_gevent()
    os.environ.setdefault("GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_FOR_RW", "false")
    _prepared = True


prepare()
