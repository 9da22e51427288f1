"""Defaulting and validation of objects on admission (placeholder until the controllers land)."""


def admit(resource, obj, old):
    return None
