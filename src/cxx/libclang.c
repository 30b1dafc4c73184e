/*
 * libclang.c: libclang, loaded when the first C/C++ file is parsed instead of when kvlint starts.
 *
 * libclang-14 and the LLVM it links are large shared libraries: loading and relocating them costs
 * about 30 ms of CPU, more than a whole pre-commit run on one Python file needs. So kvlint is not
 * linked with -lclang: this file defines each libclang function the C/C++ front end calls (with
 * the prototype of <clang-c/Index.h>, so the compiler checks every signature) as a call through
 * a table that kv_libclang_load() fills once per process with dlopen/dlsym. A run that never
 * parses a C/C++ file never loads it.
 *
 * Callers check kv_libclang_load() before the first call (cxx_parse, the version line); calling
 * a function when the library could not be loaded is a bug and aborts. The list of functions is
 * the front end's: a new call needs its line in KV_LIBCLANG_FUNCTIONS and a forwarder below.
 * It does not decide anything about C/C++ code.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "cxx/libclang.h"

#define KV_LIBCLANG_FUNCTIONS(X) \
    X(clang_Cursor_Evaluate) \
    X(clang_Cursor_getArgument) \
    X(clang_Cursor_getNumArguments) \
    X(clang_Cursor_getNumTemplateArguments) \
    X(clang_Cursor_getTemplateArgumentKind) \
    X(clang_Cursor_getTemplateArgumentType) \
    X(clang_Cursor_isNull) \
    X(clang_EvalResult_dispose) \
    X(clang_EvalResult_getAsDouble) \
    X(clang_EvalResult_getAsLongLong) \
    X(clang_EvalResult_getKind) \
    X(clang_File_isEqual) \
    X(clang_File_tryGetRealPathName) \
    X(clang_Location_isFromMainFile) \
    X(clang_createIndex) \
    X(clang_defaultSaveOptions) \
    X(clang_disposeCXTUResourceUsage) \
    X(clang_disposeDiagnostic) \
    X(clang_disposeIndex) \
    X(clang_disposeString) \
    X(clang_disposeTokens) \
    X(clang_disposeTranslationUnit) \
    X(clang_equalCursors) \
    X(clang_equalLocations) \
    X(clang_getArrayElementType) \
    X(clang_getCString) \
    X(clang_getCXTUResourceUsage) \
    X(clang_getCanonicalType) \
    X(clang_getClangVersion) \
    X(clang_getCursorExtent) \
    X(clang_getCursorKind) \
    X(clang_getCursorLocation) \
    X(clang_getCursorReferenced) \
    X(clang_getCursorSemanticParent) \
    X(clang_getCursorSpelling) \
    X(clang_getCursorType) \
    X(clang_getDiagnostic) \
    X(clang_getDiagnosticCategoryText) \
    X(clang_getDiagnosticLocation) \
    X(clang_getDiagnosticSeverity) \
    X(clang_getDiagnosticSpelling) \
    X(clang_getExpansionLocation) \
    X(clang_getFile) \
    X(clang_getFileContents) \
    X(clang_getFileName) \
    X(clang_getLocationForOffset) \
    X(clang_getNullCursor) \
    X(clang_getNumDiagnostics) \
    X(clang_getPointeeType) \
    X(clang_getRange) \
    X(clang_getRangeEnd) \
    X(clang_getRangeStart) \
    X(clang_getSpecializedCursorTemplate) \
    X(clang_getSpellingLocation) \
    X(clang_getTokenKind) \
    X(clang_getTokenLocation) \
    X(clang_getTokenSpelling) \
    X(clang_getTranslationUnitCursor) \
    X(clang_getTranslationUnitSpelling) \
    X(clang_getTypeSpelling) \
    X(clang_isConstQualifiedType) \
    X(clang_isCursorDefinition) \
    X(clang_isExpression) \
    X(clang_parseTranslationUnit2) \
    X(clang_saveTranslationUnit) \
    X(clang_tokenize) \
    X(clang_visitChildren)

typedef struct libclang_api {
#define KV_LIBCLANG_POINTER(name) __typeof__(name) *name;
    KV_LIBCLANG_FUNCTIONS(KV_LIBCLANG_POINTER)
#undef KV_LIBCLANG_POINTER
} libclang_api;

/* Written once under pthread_once, read-only afterwards. */
static libclang_api api;
static const char *load_error;
static char load_error_buf[512];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void)
{
    static const char *const names[] = { KV_LIBCLANG_PATH, "libclang-14.so.1", "libclang.so.1" };
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof names / sizeof *names; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_error_buf, sizeof load_error_buf, "cannot load %s: %s", KV_LIBCLANG_PATH, dlerror());
        load_error = load_error_buf;
        return;
    }
#define KV_LIBCLANG_RESOLVE(name)                                                                  \
    if (!load_error) {                                                                             \
        *(void **)&api.name = dlsym(h, #name);                                                     \
        if (!api.name) {                                                                           \
            snprintf(load_error_buf, sizeof load_error_buf, "%s has no %s", KV_LIBCLANG_PATH, #name); \
            load_error = load_error_buf;                                                           \
        }                                                                                          \
    }
    KV_LIBCLANG_FUNCTIONS(KV_LIBCLANG_RESOLVE)
#undef KV_LIBCLANG_RESOLVE
}

bool kv_libclang_load(const char **why)
{
    pthread_once(&load_once, load);
    if (why)
        *why = load_error;
    return load_error == NULL;
}

static const libclang_api *lib(void)
{
    if (!kv_libclang_load(NULL)) {
        fprintf(stderr, "kvlint: internal error: libclang called but not loaded (%s)\n", load_error);
        abort();
    }
    return &api;
}

/* ---- the forwarders, one per function of KV_LIBCLANG_FUNCTIONS ---- */

CXEvalResult clang_Cursor_Evaluate(CXCursor a0)
{
    return lib()->clang_Cursor_Evaluate(a0);
}

CXCursor clang_Cursor_getArgument(CXCursor a0, unsigned int a1)
{
    return lib()->clang_Cursor_getArgument(a0, a1);
}

int clang_Cursor_getNumArguments(CXCursor a0)
{
    return lib()->clang_Cursor_getNumArguments(a0);
}

int clang_Cursor_getNumTemplateArguments(CXCursor a0)
{
    return lib()->clang_Cursor_getNumTemplateArguments(a0);
}

enum CXTemplateArgumentKind clang_Cursor_getTemplateArgumentKind(CXCursor a0, unsigned int a1)
{
    return lib()->clang_Cursor_getTemplateArgumentKind(a0, a1);
}

CXType clang_Cursor_getTemplateArgumentType(CXCursor a0, unsigned int a1)
{
    return lib()->clang_Cursor_getTemplateArgumentType(a0, a1);
}

int clang_Cursor_isNull(CXCursor a0)
{
    return lib()->clang_Cursor_isNull(a0);
}

void clang_EvalResult_dispose(CXEvalResult a0)
{
    lib()->clang_EvalResult_dispose(a0);
}

double clang_EvalResult_getAsDouble(CXEvalResult a0)
{
    return lib()->clang_EvalResult_getAsDouble(a0);
}

long long clang_EvalResult_getAsLongLong(CXEvalResult a0)
{
    return lib()->clang_EvalResult_getAsLongLong(a0);
}

CXEvalResultKind clang_EvalResult_getKind(CXEvalResult a0)
{
    return lib()->clang_EvalResult_getKind(a0);
}

int clang_File_isEqual(CXFile a0, CXFile a1)
{
    return lib()->clang_File_isEqual(a0, a1);
}

CXString clang_File_tryGetRealPathName(CXFile a0)
{
    return lib()->clang_File_tryGetRealPathName(a0);
}

int clang_Location_isFromMainFile(CXSourceLocation a0)
{
    return lib()->clang_Location_isFromMainFile(a0);
}

CXIndex clang_createIndex(int a0, int a1)
{
    return lib()->clang_createIndex(a0, a1);
}

unsigned int clang_defaultSaveOptions(CXTranslationUnit a0)
{
    return lib()->clang_defaultSaveOptions(a0);
}

void clang_disposeCXTUResourceUsage(CXTUResourceUsage a0)
{
    lib()->clang_disposeCXTUResourceUsage(a0);
}

void clang_disposeDiagnostic(CXDiagnostic a0)
{
    lib()->clang_disposeDiagnostic(a0);
}

void clang_disposeIndex(CXIndex a0)
{
    lib()->clang_disposeIndex(a0);
}

void clang_disposeString(CXString a0)
{
    lib()->clang_disposeString(a0);
}

void clang_disposeTokens(CXTranslationUnit a0, CXToken *a1, unsigned int a2)
{
    lib()->clang_disposeTokens(a0, a1, a2);
}

void clang_disposeTranslationUnit(CXTranslationUnit a0)
{
    lib()->clang_disposeTranslationUnit(a0);
}

unsigned int clang_equalCursors(CXCursor a0, CXCursor a1)
{
    return lib()->clang_equalCursors(a0, a1);
}

unsigned int clang_equalLocations(CXSourceLocation a0, CXSourceLocation a1)
{
    return lib()->clang_equalLocations(a0, a1);
}

CXType clang_getArrayElementType(CXType a0)
{
    return lib()->clang_getArrayElementType(a0);
}

const char * clang_getCString(CXString a0)
{
    return lib()->clang_getCString(a0);
}

CXTUResourceUsage clang_getCXTUResourceUsage(CXTranslationUnit a0)
{
    return lib()->clang_getCXTUResourceUsage(a0);
}

CXType clang_getCanonicalType(CXType a0)
{
    return lib()->clang_getCanonicalType(a0);
}

CXString clang_getClangVersion(void)
{
    return lib()->clang_getClangVersion();
}

CXSourceRange clang_getCursorExtent(CXCursor a0)
{
    return lib()->clang_getCursorExtent(a0);
}

enum CXCursorKind clang_getCursorKind(CXCursor a0)
{
    return lib()->clang_getCursorKind(a0);
}

CXSourceLocation clang_getCursorLocation(CXCursor a0)
{
    return lib()->clang_getCursorLocation(a0);
}

CXCursor clang_getCursorReferenced(CXCursor a0)
{
    return lib()->clang_getCursorReferenced(a0);
}

CXCursor clang_getCursorSemanticParent(CXCursor a0)
{
    return lib()->clang_getCursorSemanticParent(a0);
}

CXString clang_getCursorSpelling(CXCursor a0)
{
    return lib()->clang_getCursorSpelling(a0);
}

CXType clang_getCursorType(CXCursor a0)
{
    return lib()->clang_getCursorType(a0);
}

CXDiagnostic clang_getDiagnostic(CXTranslationUnit a0, unsigned int a1)
{
    return lib()->clang_getDiagnostic(a0, a1);
}

CXString clang_getDiagnosticCategoryText(CXDiagnostic a0)
{
    return lib()->clang_getDiagnosticCategoryText(a0);
}

CXSourceLocation clang_getDiagnosticLocation(CXDiagnostic a0)
{
    return lib()->clang_getDiagnosticLocation(a0);
}

enum CXDiagnosticSeverity clang_getDiagnosticSeverity(CXDiagnostic a0)
{
    return lib()->clang_getDiagnosticSeverity(a0);
}

CXString clang_getDiagnosticSpelling(CXDiagnostic a0)
{
    return lib()->clang_getDiagnosticSpelling(a0);
}

void clang_getExpansionLocation(CXSourceLocation a0, CXFile *a1, unsigned int *a2, unsigned int *a3, unsigned int *a4)
{
    lib()->clang_getExpansionLocation(a0, a1, a2, a3, a4);
}

CXFile clang_getFile(CXTranslationUnit a0, const char *a1)
{
    return lib()->clang_getFile(a0, a1);
}

const char * clang_getFileContents(CXTranslationUnit a0, CXFile a1, size_t *a2)
{
    return lib()->clang_getFileContents(a0, a1, a2);
}

CXString clang_getFileName(CXFile a0)
{
    return lib()->clang_getFileName(a0);
}

CXSourceLocation clang_getLocationForOffset(CXTranslationUnit a0, CXFile a1, unsigned int a2)
{
    return lib()->clang_getLocationForOffset(a0, a1, a2);
}

CXCursor clang_getNullCursor(void)
{
    return lib()->clang_getNullCursor();
}

unsigned int clang_getNumDiagnostics(CXTranslationUnit a0)
{
    return lib()->clang_getNumDiagnostics(a0);
}

CXType clang_getPointeeType(CXType a0)
{
    return lib()->clang_getPointeeType(a0);
}

CXSourceRange clang_getRange(CXSourceLocation a0, CXSourceLocation a1)
{
    return lib()->clang_getRange(a0, a1);
}

CXSourceLocation clang_getRangeEnd(CXSourceRange a0)
{
    return lib()->clang_getRangeEnd(a0);
}

CXSourceLocation clang_getRangeStart(CXSourceRange a0)
{
    return lib()->clang_getRangeStart(a0);
}

CXCursor clang_getSpecializedCursorTemplate(CXCursor a0)
{
    return lib()->clang_getSpecializedCursorTemplate(a0);
}

void clang_getSpellingLocation(CXSourceLocation a0, CXFile *a1, unsigned int *a2, unsigned int *a3, unsigned int *a4)
{
    lib()->clang_getSpellingLocation(a0, a1, a2, a3, a4);
}

CXTokenKind clang_getTokenKind(CXToken a0)
{
    return lib()->clang_getTokenKind(a0);
}

CXSourceLocation clang_getTokenLocation(CXTranslationUnit a0, CXToken a1)
{
    return lib()->clang_getTokenLocation(a0, a1);
}

CXString clang_getTokenSpelling(CXTranslationUnit a0, CXToken a1)
{
    return lib()->clang_getTokenSpelling(a0, a1);
}

CXCursor clang_getTranslationUnitCursor(CXTranslationUnit a0)
{
    return lib()->clang_getTranslationUnitCursor(a0);
}

CXString clang_getTranslationUnitSpelling(CXTranslationUnit a0)
{
    return lib()->clang_getTranslationUnitSpelling(a0);
}

CXString clang_getTypeSpelling(CXType a0)
{
    return lib()->clang_getTypeSpelling(a0);
}

unsigned int clang_isConstQualifiedType(CXType a0)
{
    return lib()->clang_isConstQualifiedType(a0);
}

unsigned int clang_isCursorDefinition(CXCursor a0)
{
    return lib()->clang_isCursorDefinition(a0);
}

unsigned int clang_isExpression(enum CXCursorKind a0)
{
    return lib()->clang_isExpression(a0);
}

enum CXErrorCode clang_parseTranslationUnit2(CXIndex a0, const char *a1, const char *const *a2, int a3, struct CXUnsavedFile *a4, unsigned int a5, unsigned int a6, CXTranslationUnit *a7)
{
    return lib()->clang_parseTranslationUnit2(a0, a1, a2, a3, a4, a5, a6, a7);
}

int clang_saveTranslationUnit(CXTranslationUnit a0, const char *a1, unsigned int a2)
{
    return lib()->clang_saveTranslationUnit(a0, a1, a2);
}

void clang_tokenize(CXTranslationUnit a0, CXSourceRange a1, CXToken **a2, unsigned int *a3)
{
    lib()->clang_tokenize(a0, a1, a2, a3);
}

unsigned int clang_visitChildren(CXCursor a0, CXCursorVisitor a1, CXClientData a2)
{
    return lib()->clang_visitChildren(a0, a1, a2);
}
