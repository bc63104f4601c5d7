"""Placeholder: being written."""

from django.http import HttpResponse


def adjudication_queue(request, *args, **kwargs):
    return HttpResponse(status=501)


def adjudicate_item(request, *args, **kwargs):
    return HttpResponse(status=501)
