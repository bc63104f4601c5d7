"""Judge configurations and judge runs: reviewers and managers read, managers write.

The API key is never part of any response: a config shows only the NAME of the environment
variable that holds it, and whether the server has it set.
"""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.access import MANAGERS, STAFF_ROLES
from annotation.api.serializers import ErrorSerializer
from annotation.api.views.base import ProjectScoped
from annotation.models import ItemState
from workers.models import JudgeConfig, JudgeProtocol, JudgeRun
from workers.services.judges import (
    EDITABLE,
    JudgeError,
    judge_api_key,
    judge_config_create,
    judge_config_update,
    judge_run_cancel,
    judge_run_start,
)


class JudgeConfigSerializer(serializers.ModelSerializer):
    protocol = serializers.ChoiceField(choices=JudgeProtocol.choices)
    api_key_env = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="NAME of the environment variable (on the workers) holding the key; blank: no key.",
    )
    prompt_template = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="With $variables from the item; omitted: the protocol's default.",
    )
    api_key_set = serializers.SerializerMethodField(help_text="Whether the server has that variable set.")
    created_by = serializers.CharField(source="created_by.username", read_only=True)

    class Meta:
        model = JudgeConfig
        fields = [
            "id",
            *EDITABLE,
            "prompt_version",
            "api_key_set",
            "created_by",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "prompt_version", "api_key_set", "created_by", "created_at", "updated_at"]
        # Uniqueness of the name is the service's to check (with a clear message).
        validators: list = []

    def get_api_key_set(self, config: JudgeConfig) -> bool:
        return not config.api_key_env or bool(judge_api_key(config))


class JudgeFiltersSerializer(serializers.Serializer):
    states = serializers.ListField(child=serializers.ChoiceField(choices=ItemState.values), required=False)
    strata = serializers.ListField(child=serializers.CharField(), required=False)
    item_ids = serializers.ListField(child=serializers.IntegerField(), required=False)


class JudgeRunRequestSerializer(serializers.Serializer):
    config = serializers.IntegerField(help_text="The judge configuration to run.")
    filters = JudgeFiltersSerializer(required=False, help_text="None: every item of the project.")
    force = serializers.BooleanField(default=False, help_text="Judge again items already judged.")


class JudgeRunSerializer(serializers.ModelSerializer):
    # Text, not an enum: other status fields share these values in the schema.
    status = serializers.CharField(read_only=True, help_text="queued, running, done, failed or cancelled")
    config_name = serializers.CharField(source="config.name", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True)

    class Meta:
        model = JudgeRun
        fields = [
            "id",
            "config",
            "config_name",
            "prompt_version",
            "filters",
            "force",
            "status",
            "cancel_requested",
            "items_total",
            "items_done",
            "items_failed",
            "items_skipped",
            "requests_made",
            "tokens_in",
            "tokens_out",
            "cost_usd",
            "error",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class JudgeErrorSerializer(ErrorSerializer):
    errors = serializers.DictField(child=serializers.CharField(), help_text="Field → reason.")


class StaffReadManagerWrite(ProjectScoped):
    # Reviewers and managers read; managers write.

    @property
    def project_roles(self) -> tuple[str, ...]:
        return STAFF_ROLES if self.request.method in SAFE_METHODS else MANAGERS


def _bad(exc: JudgeError) -> ValidationError:
    return ValidationError({"detail": str(exc), "errors": exc.errors})


class JudgeConfigListView(StaffReadManagerWrite, generics.GenericAPIView):
    serializer_class = JudgeConfigSerializer

    def get_queryset(self) -> QuerySet[JudgeConfig]:
        if getattr(self, "swagger_fake_view", False):
            return JudgeConfig.objects.none()
        return JudgeConfig.objects.filter(project=self.project).select_related("created_by").order_by("name")

    @extend_schema(
        summary="The project's judge configurations.",
        tags=["judges"],
        responses={200: JudgeConfigSerializer(many=True), 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        summary="Create a judge configuration (prompt version 1).",
        tags=["judges"],
        request=JudgeConfigSerializer,
        responses={201: JudgeConfigSerializer, 400: JudgeErrorSerializer, 404: ErrorSerializer},
    )
    def post(self, request: Request, slug: str) -> Response:
        form = JudgeConfigSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            config = judge_config_create(project=self.project, actor=request.user, **form.validated_data)
        except JudgeError as exc:
            raise _bad(exc) from exc
        return Response(JudgeConfigSerializer(config).data, status=status.HTTP_201_CREATED)


class JudgeConfigDetailView(StaffReadManagerWrite, generics.GenericAPIView):
    serializer_class = JudgeConfigSerializer

    def _config(self, config_id: int) -> JudgeConfig:
        try:
            return JudgeConfig.objects.select_related("created_by").get(project=self.project, pk=config_id)
        except JudgeConfig.DoesNotExist:
            raise NotFound("No such judge.") from None

    @extend_schema(
        summary="One judge configuration.",
        tags=["judges"],
        responses={200: JudgeConfigSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, config_id: int) -> Response:
        return Response(self.get_serializer(self._config(config_id)).data)

    @extend_schema(
        summary="Change a judge; a new prompt template is a new prompt version.",
        tags=["judges"],
        request=JudgeConfigSerializer,
        responses={200: JudgeConfigSerializer, 400: JudgeErrorSerializer, 404: ErrorSerializer},
    )
    def patch(self, request: Request, slug: str, config_id: int) -> Response:
        config = self._config(config_id)
        form = JudgeConfigSerializer(config, data=request.data, partial=True)
        form.is_valid(raise_exception=True)
        try:
            config = judge_config_update(config=config, actor=request.user, **form.validated_data)
        except JudgeError as exc:
            raise _bad(exc) from exc
        return Response(JudgeConfigSerializer(config).data)


def _runs(project) -> QuerySet[JudgeRun]:
    return JudgeRun.objects.filter(config__project=project).select_related("config", "created_by")


class JudgeRunListView(StaffReadManagerWrite, generics.GenericAPIView):
    serializer_class = JudgeRunSerializer

    def get_queryset(self) -> QuerySet[JudgeRun]:
        if getattr(self, "swagger_fake_view", False):
            return JudgeRun.objects.none()
        return _runs(self.project)

    @extend_schema(
        summary="The project's judge runs, newest first.",
        tags=["judges"],
        responses={200: JudgeRunSerializer(many=True), 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        summary="Start a run of one judge over the project's items (or a filtered set).",
        description="Runs in a worker; items already judged with this prompt version are skipped "
        "unless `force`.",
        tags=["judges"],
        request=JudgeRunRequestSerializer,
        responses={202: JudgeRunSerializer, 400: JudgeErrorSerializer, 404: ErrorSerializer},
    )
    def post(self, request: Request, slug: str) -> Response:
        form = JudgeRunRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            config = JudgeConfig.objects.get(project=self.project, pk=data["config"])
        except JudgeConfig.DoesNotExist:
            raise ValidationError(
                {"detail": "No such judge.", "errors": {"config": "No such judge."}}
            ) from None
        try:
            run = judge_run_start(
                config=config,
                actor=request.user,
                filters=dict(data.get("filters") or {}),
                force=data["force"],
            )
        except JudgeError as exc:
            raise _bad(exc) from exc
        return Response(JudgeRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class JudgeRunDetailView(StaffReadManagerWrite, generics.GenericAPIView):
    serializer_class = JudgeRunSerializer

    @extend_schema(
        summary="One judge run: status and progress.",
        tags=["judges"],
        responses={200: JudgeRunSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str, run_id: int) -> Response:
        try:
            run = _runs(self.project).get(pk=run_id)
        except JudgeRun.DoesNotExist:
            raise NotFound("No such run.") from None
        return Response(self.get_serializer(run).data)


class JudgeRunCancelView(StaffReadManagerWrite, generics.GenericAPIView):
    serializer_class = JudgeRunSerializer

    @extend_schema(
        summary="Ask a run to stop (between items).",
        tags=["judges"],
        request=None,
        responses={200: JudgeRunSerializer, 400: JudgeErrorSerializer, 404: ErrorSerializer},
    )
    def post(self, request: Request, slug: str, run_id: int) -> Response:
        try:
            run = _runs(self.project).get(pk=run_id)
        except JudgeRun.DoesNotExist:
            raise NotFound("No such run.") from None
        try:
            run = judge_run_cancel(run=run, actor=request.user)
        except JudgeError as exc:
            raise _bad(exc) from exc
        return Response(self.get_serializer(run).data)
