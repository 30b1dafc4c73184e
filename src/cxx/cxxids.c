/*
 * cxxids.c: integer ids in C/C++/CUDA code, by the id vocabulary (grammars/ids.tsv through
 * facts/idvocab.c, the table the Python front end and the resolver read): a parameter or variable
 * of integer type whose name says an id class (slot_mapping, positions, token_ids, lora_idx), read as
 * it is or through a subscript (slot_mapping[i] where slot_mapping is an int64_t *), holds ids of
 * that id class, from 0 up to its id class's first config bound (max_model_len positions are
 * 0..max_model_len-1), symbolic until resolve/ binds it per deployment; an id class without a bound
 * leaves the range unknown. Nothing here guesses a range or a type: a dependent type (IdType in a
 * template), a float, or arithmetic on an id (slot / block_size) is no id.
 *
 * What it does not do: follow values (cxxeval.c does: an id assigned to a local is the local's
 * value) or judge them (check/fam_store_integer.c).
 */
#include <string.h>

#include "cxx/cxxfe.h"

/* An integer type as the code fixes it (typedefs like int64_t through their canonical type);
 * characters and bool are not ids. */
static bool integer_type(CXType t)
{
    switch (clang_getCanonicalType(t).kind) {
    case CXType_UShort: case CXType_UInt: case CXType_ULong: case CXType_ULongLong: case CXType_UInt128:
    case CXType_Short: case CXType_Int: case CXType_Long: case CXType_LongLong: case CXType_Int128:
        return true;
    default:
        return false;
    }
}

static bool id_decl_type(CXCursor decl, bool subscripted)
{
    CXType t = clang_getCursorType(decl);
    if (!subscripted)
        return integer_type(t);
    if (t.kind == CXType_Pointer)
        return integer_type(clang_getPointeeType(t));
    CXType e = clang_getArrayElementType(t);
    return e.kind != CXType_Invalid && integer_type(e);
}

bool cxx_id_value(const cxx_state *st, CXTranslationUnit tu, CXCursor expr, CXCursor decl, bool subscripted,
                  const char *path, kv_arena *a, kv_value *out)
{
    enum CXCursorKind k = clang_getCursorKind(decl);
    if (!st->ids || (k != CXCursor_ParmDecl && k != CXCursor_VarDecl && k != CXCursor_FieldDecl) ||
        !id_decl_type(decl, subscripted))
        return false;
    CXString s = clang_getCursorSpelling(decl);
    const char *name = clang_getCString(s);
    const char *idc = id_vocab_name_class(st->ids, name, strlen(name));
    clang_disposeString(s);
    if (!idc)
        return false;
    memset(out, 0, sizeof *out);
    out->kind = VK_INTEGER;
    out->id_class = arena_strdup(a, idc);
    out->sym_scale = 1;
    const id_class *f = id_vocab_class(st->ids, idc);
    if (f && f->bounds.n) {
        out->hi_sym = arena_strdup(a, f->bounds.v[0].key);
        out->hi_sym_add = f->bounds.v[0].count ? -1 : 0;
    } else {
        out->hi_unknown = true;
    }
    out->text = cxx_text(tu, expr, a);
    if (!cxx_any_loc(tu, expr, path, a, &out->origin))
        out->origin = kv_loc_make(path, 0, 0, 0, 0);
    return true;
}
