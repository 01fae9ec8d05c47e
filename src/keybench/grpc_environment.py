"""The environment every keybench process gives gRPC and the Spanner client: import this
before anything imports grpc (keybench.infra.runtime, which also puts gevent in place, does).

gRPC's fork support must be off before grpc is imported: with it on, grpcio 1.81+ aborts a
few percent of the children that subprocess.Popen forks (epoll_wait EBADF before exec;
grpc/grpc#43055), which here means emulators and `keybench` commands dying at start.
keybench creates every client after any fork, so it needs no fork support.

Against the Spanner emulator, multiplexed sessions for read-write transactions make
concurrent transactions fail instead of being retried: the emulator runs one read-write
transaction at a time. The children keybench starts (an application under `keybench
record`, Locust workers) inherit both settings; a value the user set is kept.
"""

import os

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
os.environ.setdefault("GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_FOR_RW", "false")
