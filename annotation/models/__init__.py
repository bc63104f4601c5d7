from .checklists import MAX_CHECKLIST_ITEMS, ChecklistVersion
from .content import Task, ToolEnv, Trajectory
from .project import Membership, Project, Role
from .suggestions import Suggestion
from .work import (
    Annotation,
    AnnotationRevision,
    Assignment,
    AssignmentStatus,
    ImportJob,
    Item,
    ItemKind,
    ItemState,
)

__all__ = [
    "Annotation",
    "AnnotationRevision",
    "Assignment",
    "AssignmentStatus",
    "ChecklistVersion",
    "ImportJob",
    "Item",
    "MAX_CHECKLIST_ITEMS",
    "ItemKind",
    "ItemState",
    "Membership",
    "Project",
    "Role",
    "Suggestion",
    "Task",
    "ToolEnv",
    "Trajectory",
]
