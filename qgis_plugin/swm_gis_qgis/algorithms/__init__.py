"""The algorithms of the swm_gis provider (ids are stable: ``docs/qgis.md``), and the town
set-up that saves the town config they take as their first parameter."""

from .abutters import AbuttersAlgorithm
from .applicability_map import ApplicabilityMapAlgorithm
from .disturbance_trigger import DisturbanceTriggerAlgorithm
from .engine_setup import EngineSetupAlgorithm
from .floodplain_overlap import FloodplainOverlapAlgorithm
from .habitat_screening import HabitatScreeningAlgorithm
from .load_sample_town import LoadSampleTownAlgorithm
from .mitigation_eligibility import MitigationEligibilityAlgorithm
from .publish_web_map import PublishWebMapAlgorithm
from .receiving_waters import ReceivingWatersAlgorithm
from .site_screening import SiteScreeningAlgorithm
from .town_setup import TownSetupAlgorithm

ALGORITHMS = (
    DisturbanceTriggerAlgorithm,
    AbuttersAlgorithm,
    HabitatScreeningAlgorithm,
    FloodplainOverlapAlgorithm,
    MitigationEligibilityAlgorithm,
    ReceivingWatersAlgorithm,
    SiteScreeningAlgorithm,
    ApplicabilityMapAlgorithm,
    PublishWebMapAlgorithm,
    TownSetupAlgorithm,
    LoadSampleTownAlgorithm,
    EngineSetupAlgorithm,
)
