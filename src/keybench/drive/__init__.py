"""Driving load: the stage, the workload, the Locust users, the scenarios and the workers."""
