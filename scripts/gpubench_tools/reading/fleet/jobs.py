"""Which job wrote a fleet's files, and which of a directory's jobs is the newest.

deploy/slurm writes into one directory job after job, replacing a GPU's files when a job runs
it: a GPU a later job did not reach (a lost node, a smaller allocation) keeps an earlier job's
files, which would stand for it as if that job were the newest. A record names its job (`job=`:
SLURM_JOB_ID, or a Kubernetes Job's name) and when it was written (`time=`); a result names its
Slurm job in its context (`slurm_job_id`).
"""

from typing import Any


def job_of_context(context: dict[str, Any]) -> str | None:
    """The Slurm job a result's context names, None where it names none."""
    job = context.get("slurm_job_id")
    return str(job) if job not in (None, "") else None


def newest_job(latest_times: dict[str, str]) -> str:
    """The newest of the jobs given, each with the latest `time` of its records ("" for none):
    the largest where every job is a number (Slurm numbers its jobs in the order submitted),
    else the one with the latest record (UTC times as YYYY-MM-DDTHH:MM:SSZ sort as text)."""
    if all(job.isascii() and job.isdigit() for job in latest_times):
        return max(latest_times, key=lambda job: (len(job.lstrip("0")), job.lstrip("0")))
    return max(latest_times, key=lambda job: (latest_times[job], job))
