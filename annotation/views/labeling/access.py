"""Who may see one item, in which order, and what they may do with it."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404, HttpRequest

from annotation import selectors
from annotation.access import STAFF_ROLES
from annotation.labels import display_order
from annotation.models import Annotation, Assignment, AssignmentStatus, Item, Suggestion
from annotation.models.work import OPEN_STATES

CANONICAL = ["first", "second"]


@dataclass
class Access:
    """What the current user may see of one item, and in which order."""

    item: Item
    staff: bool
    assignment: Assignment | None
    annotation: Annotation | None
    order: list[str]

    @property
    def mode(self) -> str:
        """staff: read-only canonical view; submit: a fresh label; edit: change one's own label
        while the item is open; readonly: one's own label on a settled item."""
        if self.staff:
            return "staff"
        if self.annotation is None:
            return "submit"
        return "edit" if self.item.state in OPEN_STATES else "readonly"


def item_access(request: HttpRequest, item_id: int) -> Access:
    """The item as the requesting member may see it; 404 for an item an annotator does not hold."""
    project = request.project
    try:
        item = selectors.item_for_labeling(project=project, item_id=item_id)
    except Item.DoesNotExist as exc:
        raise Http404("No such item.") from exc
    if request.project_role in STAFF_ROLES:
        return Access(item, staff=True, assignment=None, annotation=None, order=list(CANONICAL))
    assignment = Assignment.objects.filter(item=item, annotator=request.user).first()
    annotation = Annotation.objects.filter(item=item, annotator=request.user).first()
    holds = assignment is not None and assignment.status == AssignmentStatus.ACTIVE
    if annotation is None and not holds:
        raise Http404("This item is not assigned to you.")
    order = (
        (annotation.display_order if annotation else None)
        or (assignment.display_order if assignment else None)
        or display_order(item_id=item.pk, annotator_id=request.user.pk)
    )
    return Access(item, staff=False, assignment=assignment, annotation=annotation, order=list(order))


def machine_suggestion(request: HttpRequest, access: Access) -> Suggestion | None:
    """The machine suggestion that pre-fills a fresh label, only where the project shows them."""
    if access.mode != "submit" or not request.project.show_suggestions:
        return None
    return selectors.prefill_suggestion(item=access.item)
