"""One router per resource, assembled by `services.api.app.create_app`."""
