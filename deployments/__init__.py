"""Schedules, work pools and deployment parameters of the flows (filled by the deployments issue)."""
