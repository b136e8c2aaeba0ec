"""Experiments: the experiment documents of the figures directory (``docs/figures`` unless the
API is started with another), and one experiment's arms as ``/experiments/{name}`` draws them:
the mean learning curve with its 95 % band, the run figures and the difference to the baseline
(``services.experiment_view``, which the pictures of ``docs/results.md`` share)."""

from __future__ import annotations

from fastapi import APIRouter

from services.api.deps import ExperimentName, Figures, SelectedExperiment
from services.api.schemas import ErrorMessage, ExperimentDetail, ExperimentSummary
from services.experiment_view import experiment, experiment_documents, headline_of

router = APIRouter(prefix="/api/experiments", tags=["experiments"])


@router.get("")
def list_experiments(figures: Figures) -> list[ExperimentSummary]:
    """Every experiment document of the figures directory, by name."""
    return [
        ExperimentSummary(
            name=name,
            headline=headline_of(document),
            baseline=document["baseline"],
            arms=list(dict.fromkeys(run["variant"] for run in document["runs"])),  # first run first
            runs=len(document["runs"]),
        )
        for name, document in experiment_documents(figures).items()
    ]


@router.get(
    "/{name}", responses={404: {"model": ErrorMessage, "description": "no such experiment"}}
)
def get_experiment(name: ExperimentName, document: SelectedExperiment) -> ExperimentDetail:
    """One experiment's arms: curve band, run figures per seed, difference to the baseline."""
    return ExperimentDetail.model_validate(experiment(name, document))
