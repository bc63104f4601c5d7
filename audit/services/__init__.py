"""Audit writes (sampling) and the dashboard's reads."""

from .sampling import STRATUM_FIELDS, SamplingError, audit_sample_draw

__all__ = ["STRATUM_FIELDS", "SamplingError", "audit_sample_draw"]
