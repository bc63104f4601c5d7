"""Placeholder: being written."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView


class JudgeConfigListView(APIView):
    @extend_schema(request=None, responses=None)
    def get(self, request, *args, **kwargs):
        return Response(status=501)

    @extend_schema(request=None, responses=None)
    def post(self, request, *args, **kwargs):
        return Response(status=501)


class JudgeConfigDetailView(APIView):
    @extend_schema(request=None, responses=None)
    def get(self, request, *args, **kwargs):
        return Response(status=501)

    @extend_schema(request=None, responses=None)
    def patch(self, request, *args, **kwargs):
        return Response(status=501)


class JudgeRunListView(APIView):
    @extend_schema(request=None, responses=None)
    def get(self, request, *args, **kwargs):
        return Response(status=501)

    @extend_schema(request=None, responses=None)
    def post(self, request, *args, **kwargs):
        return Response(status=501)


class JudgeRunDetailView(APIView):
    @extend_schema(request=None, responses=None)
    def get(self, request, *args, **kwargs):
        return Response(status=501)


class JudgeRunCancelView(APIView):
    @extend_schema(request=None, responses=None)
    def post(self, request, *args, **kwargs):
        return Response(status=501)
