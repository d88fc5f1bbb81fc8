"""Test-wide setup.

* duetime reads zones from the ``tzdata`` package only; empty the system TZPATH
  before anything builds a ZoneInfo so the tests, the oracle and the core all
  see that same database.
* Hypothesis profiles: "ci" (default, short) and "fuzz" (max_examples=200_000),
  chosen by the environment variable HYPOTHESIS_PROFILE; deadline=None in both.
  HYPOTHESIS_MAX_EXAMPLES=N overrides the number of examples of either.
"""

import os
import sys

from duetime import tzdb

tzdb.pin()

# `import oracle` from the tests folder whatever pytest's rootdir / import mode.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hypothesis import HealthCheck, settings  # noqa: E402

_COMMON = dict(
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# "ci": derandomized, so a run is reproducible and an unrelated change never
# turns red by chance; "fuzz" explores with fresh randomness each run.
settings.register_profile("ci", max_examples=200, derandomize=True, **_COMMON)
settings.register_profile("fuzz", max_examples=200_000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
if os.environ.get("HYPOTHESIS_MAX_EXAMPLES"):  # ad-hoc runs of any length
    settings.register_profile(
        "custom", settings.default, max_examples=int(os.environ["HYPOTHESIS_MAX_EXAMPLES"]), derandomize=False
    )
    settings.load_profile("custom")
