"""My projects, and one project."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import selectors
from annotation.models import Membership, Project

from ..serializers import ErrorSerializer, ProjectDetailSerializer, ProjectSerializer
from .base import ProjectScoped


@extend_schema(summary="Projects I am a member of, with my role in each.", tags=["projects"])
class ProjectListView(generics.ListAPIView):
    serializer_class = ProjectSerializer

    def get_queryset(self) -> QuerySet[Project]:
        if getattr(self, "swagger_fake_view", False):
            return Project.objects.none()
        return selectors.project_list(user=self.request.user)

    def get_serializer_context(self) -> dict:
        context = super().get_serializer_context()
        if not getattr(self, "swagger_fake_view", False):
            roles = Membership.objects.filter(user=self.request.user).values_list("project_id", "role")
            context["roles"] = dict(roles)
        return context


class ProjectDetailView(ProjectScoped, APIView):
    @extend_schema(
        summary="One project: guidelines, label schema, overlap and progress.",
        tags=["projects"],
        responses={200: ProjectDetailSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> Response:
        progress = selectors.progress(project=self.project, annotator=request.user)
        context = {"role": self.project_role, "progress": progress}
        return Response(ProjectDetailSerializer(self.project, context=context).data)
