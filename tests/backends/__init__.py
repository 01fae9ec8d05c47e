"""Tests of loadtests/backends/."""
