"""Exports of verified items into deterministic, leak-free splits.

- policy: what a request may say (splits "train=0.8,dev=0.1,test=0.1", seed, stratify,
  filters, formats) and the errors it gets;
- rows: the one read of the items (a row each, big JSON values as text);
- grouping: items sharing a task, web task or media file form one group (union-find);
- splitting: whole groups go to splits by sha256(seed, group key), optionally per stratum;
- records: interchange records with the settled label, and preference (prompt/chosen/rejected)
  records for pairs; traces, steps, queries: the files of those kinds (corrected traces, chat
  SFT, original/corrected and step-level preferences, checklists, refined queries);
- formats: which function writes which file, per item kind (policy.KIND_FORMATS says which
  files a kind offers);
- writers / pipeline: one streaming read of the items, spool files, split files with sha256;
- manifest: counts per split and stratum, agreement at export time, hashes of every file.

The services that create and run an Export (queued in a worker) are in review.services.exports.
"""

from .policy import ExportRequestError, Split, parse_splits

__all__ = ["ExportRequestError", "Split", "parse_splits"]
