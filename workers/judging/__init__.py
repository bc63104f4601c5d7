"""LLM judging: protocols (prompt building, strict parsing, arithmetic) and the run machinery."""
