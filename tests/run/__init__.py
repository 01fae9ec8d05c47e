"""Tests of loadtests/run/."""
