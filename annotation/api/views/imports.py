"""Imports: managers upload a file; a worker imports it; the job reports progress and errors."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import get_object_or_404
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from annotation import selectors
from annotation.access import MANAGERS
from annotation.services.imports import import_job_create

from ..serializers import (
    ErrorSerializer,
    ImportAcceptedSerializer,
    ImportJobSerializer,
    ImportUploadSerializer,
)
from .base import ProjectScoped


class ImportCreateView(ProjectScoped, APIView):
    project_roles = MANAGERS
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        summary="Upload a JSONL file (and optional media zip) to import.",
        description="The import runs in a worker; follow it at `status_url`.",
        tags=["imports"],
        request={"multipart/form-data": ImportUploadSerializer},
        responses={202: ImportAcceptedSerializer, 400: ErrorSerializer, 404: ErrorSerializer},
    )
    def post(self, request: Request, slug: str) -> Response:
        form = ImportUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            job = import_job_create(
                project=self.project,
                actor=request.user,
                upload=data["file"],
                media_zip=data.get("media"),
                replace=data["replace"],
            )
        except (ValueError, DjangoValidationError) as exc:
            raise ValidationError({"file": [str(getattr(exc, "message", exc))]}) from exc
        url = reverse(
            "api:import-detail", kwargs={"slug": self.project.slug, "job_id": job.pk}, request=request
        )
        body = ImportAcceptedSerializer({"id": job.pk, "status": job.status, "status_url": url}).data
        return Response(body, status=status.HTTP_202_ACCEPTED)


class ImportDetailView(ProjectScoped, APIView):
    project_roles = MANAGERS

    @extend_schema(
        summary="An import job: status, counts, and every rejected line.",
        tags=["imports"],
        responses={200: ImportJobSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, job_id: int) -> Response:
        job = get_object_or_404(selectors.import_jobs(project=self.project), pk=job_id)
        return Response(ImportJobSerializer(job).data)
