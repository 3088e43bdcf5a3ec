"""Kernel building blocks shared by several task files (their source is bundled into records)."""
