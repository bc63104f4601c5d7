"""Placeholder: being written."""

from django.http import HttpResponse


def export_list(request, *args, **kwargs):
    return HttpResponse(status=501)


def export_detail(request, *args, **kwargs):
    return HttpResponse(status=501)


def export_download(request, *args, **kwargs):
    return HttpResponse(status=501)
