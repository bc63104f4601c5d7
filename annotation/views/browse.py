"""Placeholder: being written."""

from django.http import HttpResponse


def item_list(request, *args, **kwargs):
    return HttpResponse(status=501)


def my_labels(request, *args, **kwargs):
    return HttpResponse(status=501)
