"""Placeholder: being written."""

from django.http import HttpResponse


def import_upload(request, *args, **kwargs):
    return HttpResponse(status=501)


def import_status(request, *args, **kwargs):
    return HttpResponse(status=501)


def media_file(request, *args, **kwargs):
    return HttpResponse(status=501)
