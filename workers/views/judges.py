"""Placeholder: being written."""

from django.http import HttpResponse


def judge_list(request, *args, **kwargs):
    return HttpResponse(status=501)


def judge_detail(request, *args, **kwargs):
    return HttpResponse(status=501)


def judge_preview(request, *args, **kwargs):
    return HttpResponse(status=501)


def run_list(request, *args, **kwargs):
    return HttpResponse(status=501)


def run_detail(request, *args, **kwargs):
    return HttpResponse(status=501)


def run_cancel(request, *args, **kwargs):
    return HttpResponse(status=501)
