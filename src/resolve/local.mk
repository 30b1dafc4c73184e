# src/resolve: dtype declarations -> deployments (auto chains, platform, what-ifs, id ranges).
src_libkvlint_a_SOURCES += src/resolve/deploy.h src/resolve/deploy.c src/resolve/fields.c
