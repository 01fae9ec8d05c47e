"""A Locust worker process of `keybench run --workers N`: joins the master, loads the stage
the master hands it, reports its collector, and exits when the master quits."""

from __future__ import annotations

import argparse
import sys

from locust.env import Environment
from locust.event import Events

import keybench.infra.runtime  # noqa: F401  (gevent and gRPC set-up, before any client exists)
from keybench.backends import binding
from keybench.design.strategies import BACKENDS
from keybench.drive.distributed import attach_worker
from keybench.drive.users import CurrentStage, user_class


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m keybench.drive.worker")
    p.add_argument("--master-host", default="127.0.0.1")
    p.add_argument("--master-port", type=int, required=True)
    args = p.parse_args(argv)
    for backend in BACKENDS:  # before it joins the master: the stage it is handed may be either's
        binding(backend)
    slot = CurrentStage()
    env = Environment(user_classes=[user_class(slot)], events=Events())
    runner = env.create_worker_runner(args.master_host, args.master_port)
    attach_worker(env, slot)
    runner.greenlet.join()
    env.events.quitting.fire(environment=env, reverse=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
