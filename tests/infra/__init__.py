"""Tests of loadtests/infra/."""
