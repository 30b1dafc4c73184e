# Reporters: text (gcc style), JSON, SARIF 2.1.0, GitHub workflow commands, GitLab Code Quality, JUnit XML.
src_libkvlint_a_SOURCES += \
	src/report/report.h src/report/source.c src/report/summary.c src/report/deployments.c \
	src/report/report_text.c src/report/report_json.c \
	src/report/report_sarif.c src/report/report_github.c \
	src/report/report_gitlab.c src/report/report_junit.c src/report/repo_path.c
