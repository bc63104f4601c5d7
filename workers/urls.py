from django.urls import path

from .views import judges

urlpatterns = [
    path("", judges.judge_list, name="judge_list"),
    path("<int:config_id>/", judges.judge_detail, name="judge_detail"),
    path("<int:config_id>/preview/", judges.judge_preview, name="judge_preview"),
    path("runs/", judges.run_list, name="judge_run_list"),
    path("runs/<int:run_id>/", judges.run_detail, name="judge_run_detail"),
    path("runs/<int:run_id>/cancel/", judges.run_cancel, name="judge_run_cancel"),
]
