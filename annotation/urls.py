from django.urls import path

from .views import projects

urlpatterns = [
    path("", projects.home, name="home"),
    path("p/<slug:slug>/", projects.project_overview, name="project"),
]
