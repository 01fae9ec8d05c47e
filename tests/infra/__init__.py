"""Tests of keybench/infra/."""
