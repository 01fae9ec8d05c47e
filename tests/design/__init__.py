"""Tests of loadtests/design/."""
