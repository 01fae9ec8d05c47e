"""A Locust worker process of `keybench run --workers N`: joins the master, loads the stage
the master hands it, reports its collector, and exits when the master quits."""

from __future__ import annotations

import loadtests.runtime  # noqa: F401  (gevent and gRPC set-up, before any client exists)

import argparse
import sys

from locust.env import Environment
from locust.event import Events

from loadtests.distributed import attach_worker
from loadtests.users import StageUser


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m loadtests.worker")
    p.add_argument("--master-host", default="127.0.0.1")
    p.add_argument("--master-port", type=int, required=True)
    args = p.parse_args(argv)
    env = Environment(user_classes=[StageUser], events=Events())
    runner = env.create_worker_runner(args.master_host, args.master_port)
    attach_worker(env)
    runner.greenlet.join()
    env.events.quitting.fire(environment=env, reverse=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
