"""Where the shared example files live: ../shared/fixtures beside the checkout (CI clones the
repository with shared/ next to it)."""

from pathlib import Path

SHARED_FIXTURES = Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures"
