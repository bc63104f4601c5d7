"""Placeholder: being written."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView


class AgreementView(APIView):
    @extend_schema(request=None, responses=None)
    def get(self, request, *args, **kwargs):
        return Response(status=501)
