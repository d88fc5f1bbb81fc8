"""Run a Temporal worker for the SLA workflow, with duetime activities.

    python examples/temporal/worker.py --temporal 127.0.0.1:7233 --duetime 127.0.0.1:50051

It polls task queue ``duetime-sla`` (``--task-queue``) in namespace
``default`` (``--namespace``) until SIGINT or SIGTERM, then drains and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sla_workflow, sla_activities

from temporalio.client import Client  # noqa: E402
from temporalio.worker import Worker  # noqa: E402

from duetime.client import DuetimeClient  # noqa: E402
from sla_activities import DuetimeActivities, TicketActivities  # noqa: E402
from sla_workflow import SlaWorkflow  # noqa: E402
from ticket_workflow import TicketSlaWorkflow  # noqa: E402

TASK_QUEUE = "duetime-sla"


def build_worker(client: Client, duetime: DuetimeClient, task_queue: str = TASK_QUEUE,
                 executor: Executor | None = None) -> Worker:
    """A worker running :class:`SlaWorkflow` (one clock), :class:`TicketSlaWorkflow`
    (a policy's metrics, warnings and next action) and the duetime activities
    (which are synchronous gRPC calls, so they run on ``executor``'s threads)."""
    activities = DuetimeActivities(duetime)
    ticket = TicketActivities(duetime)
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[SlaWorkflow, TicketSlaWorkflow],
        activities=[activities.start_clock, activities.apply_event, activities.escalate,
                    ticket.evaluate_sla, ticket.notify_warning, ticket.escalate_breach],
        activity_executor=executor or ThreadPoolExecutor(max_workers=8),
    )


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--temporal", default="127.0.0.1:7233", help="Temporal frontend HOST:PORT")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--task-queue", default=TASK_QUEUE)
    parser.add_argument("--duetime", default="127.0.0.1:50051", help="duetime server HOST:PORT")
    parser.add_argument("--timeout", type=float, default=5.0,
                        help="seconds each duetime call may take")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")

    client = await Client.connect(args.temporal, namespace=args.namespace)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    with DuetimeClient(args.duetime, timeout=args.timeout) as duetime, \
            ThreadPoolExecutor(max_workers=8) as executor:
        async with build_worker(client, duetime, args.task_queue, executor):
            logging.info("worker polling %s on %s (duetime at %s)", args.task_queue,
                         args.temporal, args.duetime)
            await stop.wait()
    logging.info("worker stopped")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
