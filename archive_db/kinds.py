"""Names the archive's rows carry, kept with the schema: event kinds, teacher names and the
attempt stages that are not a validation stage.

Every service writes and reads these through here, so a kind is spelled in one place.
"""

from __future__ import annotations

# events.kind
RUN_STARTED_EVENT = "run_started"
RUN_STOPPED_EVENT = "run_stopped"
SESSION_EVENT = "student_session"  # one per student session (services.student.sessions)
TARGET_EVENT = "target_eval"  # one per evaluated checkpoint on the target protocol
CONTROL_EVENT = "generation_control"  # generation paused or resumed through the API

# levels.teacher / attempts.teacher (besides the teachers of dicode.teachers.registry)
SEED_TEACHER = "seed"  # the domain's hand-written seed levels
HUMAN_TEACHER = "human"  # levels submitted through the API
FILE_TEACHER = "file"  # a parent read from a file by `dicode teach --db`

# attempts.failing_stage outside the validation pipeline's stages
GENERATOR_STAGE = "generator"  # the attempt failed outside the teacher
