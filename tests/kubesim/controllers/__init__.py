"""kubesim's controllers (placeholder until the controller manager lands)."""


class ControllerManager:
    def __init__(self, store, *, nodes=3, ready_delay=0.2, fail_image=None, time_scale=1.0):
        self.store = store
        self.readiness_log = []

    async def run(self):
        return None
