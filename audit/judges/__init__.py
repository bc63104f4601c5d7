"""Judge-vs-human agreement: how each LLM judge config agrees with settled human labels."""

from .metrics import BUCKETS, LENGTH_BINS, PCA_DIMENSIONS, TURN_BINS
from .report import JudgeReportError, judge_vs_human

__all__ = ["BUCKETS", "LENGTH_BINS", "PCA_DIMENSIONS", "TURN_BINS", "JudgeReportError", "judge_vs_human"]
