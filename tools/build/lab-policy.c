/* lab-policy.c — proves, before a lab's test program ever runs, that no code from the learner's
 * edited files can run in the test *runner* process: only in the per-test workers Criterion
 * starts. The grader (tools/grader/grade) relies on this: the runner is the one process that writes the
 * report, so it must hold none of the submission's code. tools/build/build-lab runs it after every link
 * on the sim backend, so `make check` refuses exactly what the grader refuses.
 *
 *   lab-policy --program TESTS --edited A.o [B.o ...] --book X.o ... LIB.a ... --system CRT.o ... LIB.a ...
 *
 * The edited objects may not
 *   1. carry a section other than code, data, debug information and the like (allowlist below):
 *      no .init_array / .ctors / .preinit_array / .init / .fini (code that runs before or after
 *      main in every process, the runner included), no Criterion test or hook sections;
 *   2. define a GNU indirect function (its resolver runs while the program is loaded);
 *   3. define a name that a library of the program uses or defines (libc, libstdc++, Criterion,
 *      the crt start-up files: shared libraries are found through the program's DT_NEEDED), since
 *      the program's definition would replace the library's everywhere, in the runner too; nor a
 *      name the book's own objects define, unless both are weak copies of one inline function;
 *   4. refer to the test framework's internals (criterion_*, cr_*, bxf_*, nn_*, nng_*).
 * What it does not do: judge what the learner's functions do when the tests call them. That
 * happens in the workers, inside the grader's sandbox.
 *
 * Exit status 0 when the objects comply; 1 with one line per violation ("refused: FILE: why"), written
 * for the learner;
 * 2 when a file cannot be read. Every offset read from a file is bounds-checked: the input is
 * untrusted. */
#include <dirent.h>
#include <elf.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------------------------
 * A set of names, each remembering the first file it came from and how it appeared */

enum { DEFINED = 1, WEAK_DEFINED = 2, REFERENCED = 4 };

typedef struct entry { char *name; const char *file; int how; } entry;
typedef struct name_set { entry *slots; size_t capacity, count; } name_set;

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static entry *find_slot(name_set *set, const char *name)
{
    size_t i = hash_name(name) & (set->capacity - 1);
    while (set->slots[i].name && strcmp(set->slots[i].name, name) != 0) i = (i + 1) & (set->capacity - 1);
    return &set->slots[i];
}

static void set_add(name_set *set, const char *name, const char *file, int how)
{
    if (set->count * 2 >= set->capacity) {
        name_set bigger = {calloc(set->capacity ? set->capacity * 2 : 1024, sizeof(entry)),
                           set->capacity ? set->capacity * 2 : 1024, 0};
        if (!bigger.slots) { perror("lab-policy"); exit(2); }
        for (size_t i = 0; i < set->capacity; i++)
            if (set->slots[i].name) { *find_slot(&bigger, set->slots[i].name) = set->slots[i]; bigger.count++; }
        free(set->slots);
        *set = bigger;
    }
    entry *e = find_slot(set, name);
    if (!e->name) { e->name = strdup(name); e->file = file; set->count++; }
    else if (how != REFERENCED && !(e->how & (DEFINED | WEAK_DEFINED))) e->file = file;   /* name the definer */
    e->how |= how;
}

static entry *set_get(name_set *set, const char *name)
{
    if (!set->capacity) return NULL;
    entry *e = find_slot(set, name);
    return e->name ? e : NULL;
}

/* ---------------------------------------------------------------------------------
 * Reading ELF files (64-bit, little-endian: what the simulator builds for) */

typedef struct image { const char *path; unsigned char *data; size_t size; } image;

static int failures = 0;

static void violation(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("refused: ", stdout);
    vprintf(format, args);
    putchar('\n');
    va_end(args);
    failures++;
}

static void fatal(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("lab-policy: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(2);
}

static int in_bounds(const image *im, uint64_t offset, uint64_t length)
{
    return offset <= im->size && length <= im->size - offset;
}

static const Elf64_Shdr *section(const image *im, const Elf64_Ehdr *eh, unsigned index)
{
    if (index >= eh->e_shnum) return NULL;
    uint64_t at = eh->e_shoff + (uint64_t)index * sizeof(Elf64_Shdr);
    return in_bounds(im, at, sizeof(Elf64_Shdr)) ? (const Elf64_Shdr *)(im->data + at) : NULL;
}

/* A NUL-terminated string at offset within section strtab, or NULL if it runs off the end. */
static const char *string_at(const image *im, const Elf64_Shdr *strtab, uint64_t offset)
{
    if (!strtab || offset >= strtab->sh_size || !in_bounds(im, strtab->sh_offset, strtab->sh_size)) return NULL;
    const char *s = (const char *)im->data + strtab->sh_offset + offset;
    return memchr(s, 0, strtab->sh_size - offset) ? s : NULL;
}

static const Elf64_Ehdr *elf_header(const image *im)
{
    if (im->size < sizeof(Elf64_Ehdr) || memcmp(im->data, ELFMAG, SELFMAG) != 0) return NULL;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im->data;
    if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB) return NULL;
    if (eh->e_shnum && (eh->e_shentsize != sizeof(Elf64_Shdr) ||
                        !in_bounds(im, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr))))
        return NULL;
    return eh;
}

static image load(const char *path)
{
    image im = {path, NULL, 0};
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) fatal("cannot read %s", path);
    im.size = (size_t)st.st_size;
    im.data = malloc(im.size ? im.size : 1);
    if (!im.data || fread(im.data, 1, im.size, f) != im.size) fatal("cannot read %s", path);
    fclose(f);
    return im;
}

/* The name up to any symbol version ("fopen@@GLIBC_2.2.5" -> "fopen"), in a static buffer. */
static const char *unversioned(const char *name)
{
    static char buffer[4096];
    size_t n = strcspn(name, "@");
    if (n >= sizeof buffer) n = sizeof buffer - 1;
    memcpy(buffer, name, n);
    buffer[n] = 0;
    return buffer;
}

/* Calls visit(name, how, type) for each global or weak symbol of the symbol table of type
 * symtab_type (SHT_SYMTAB in objects, SHT_DYNSYM in shared libraries). */
typedef void (*symbol_visitor)(const char *name, int how, int type, void *context);

static void each_symbol(const image *im, const Elf64_Ehdr *eh, unsigned symtab_type, symbol_visitor visit,
                        void *context)
{
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        const Elf64_Shdr *sh = section(im, eh, i);
        if (!sh || sh->sh_type != symtab_type || sh->sh_entsize != sizeof(Elf64_Sym)) continue;
        if (!in_bounds(im, sh->sh_offset, sh->sh_size)) fatal("%s: a symbol table runs past the end of the file", im->path);
        const Elf64_Shdr *strtab = section(im, eh, sh->sh_link);
        size_t count = sh->sh_size / sizeof(Elf64_Sym);
        for (size_t k = 1; k < count; k++) {
            const Elf64_Sym *sym = (const Elf64_Sym *)(im->data + sh->sh_offset) + k;
            int bind = ELF64_ST_BIND(sym->st_info), type = ELF64_ST_TYPE(sym->st_info);
            if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) continue;
            const char *name = string_at(im, strtab, sym->st_name);
            if (!name || !*name) continue;
            int how = sym->st_shndx == SHN_UNDEF ? REFERENCED : bind == STB_WEAK ? WEAK_DEFINED : DEFINED;
            visit(unversioned(name), how, type, context);
        }
    }
}

/* Calls visit for every ELF member of an ar archive, or for the file itself. */
typedef void (*image_visitor)(const image *im, const Elf64_Ehdr *eh, void *context);

static void each_elf(const image *im, image_visitor visit, void *context)
{
    if (im->size >= 8 && memcmp(im->data, "!<arch>\n", 8) == 0) {
        uint64_t at = 8;
        while (at + 60 <= im->size) {
            char size_text[11] = {0};
            memcpy(size_text, im->data + at + 48, 10);
            char *end;
            unsigned long long member_size = strtoull(size_text, &end, 10);
            if (end == size_text || !in_bounds(im, at + 60, member_size)) fatal("%s: a damaged archive", im->path);
            image member = {im->path, im->data + at + 60, (size_t)member_size};
            /* GNU archives keep long names in "//"; BSD ones put "#1/len" names in front of the data */
            if (memcmp(im->data + at, "#1/", 3) == 0) {
                unsigned long name_length = strtoul((const char *)im->data + at + 3, NULL, 10);
                if (name_length <= member.size) member.data += name_length, member.size -= name_length;
            }
            const Elf64_Ehdr *eh = elf_header(&member);
            if (eh) visit(&member, eh, context);
            at += 60 + member_size + (member_size & 1);
        }
        return;
    }
    const Elf64_Ehdr *eh = elf_header(im);
    if (!eh) fatal("%s is not a 64-bit little-endian ELF file or archive", im->path);
    visit(im, eh, context);
}

/* ---------------------------------------------------------------------------------
 * Collecting the names of the book's objects and of the system */

typedef struct collector { name_set *set; const char *file; } collector;

static void collect_symbol(const char *name, int how, int type, void *context)
{
    (void)type;
    collector *c = context;
    set_add(c->set, name, c->file, how);
}

static void collect_object(const image *im, const Elf64_Ehdr *eh, void *context)
{
    each_symbol(im, eh, SHT_SYMTAB, collect_symbol, context);
    each_symbol(im, eh, SHT_DYNSYM, collect_symbol, context);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void collect_file(name_set *set, const char *path)
{
    image im = load(path);
    collector c = {set, base_name(path)};
    each_elf(&im, collect_object, &c);
    free(im.data);
}

/* Shared libraries: the program's DT_NEEDED, and theirs, found where the dynamic loader looks. */

static char *search_dirs[64];
static int search_dir_count;

static void add_search_dir(const char *dir)
{
    for (int i = 0; i < search_dir_count; i++)
        if (strcmp(search_dirs[i], dir) == 0) return;
    if (search_dir_count < 64) search_dirs[search_dir_count++] = strdup(dir);
}

static void read_ld_so_conf(void)
{
    DIR *d = opendir("/etc/ld.so.conf.d");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (fnmatch("*.conf", e->d_name, 0) != 0) continue;
        char path[4096], line[4096];
        snprintf(path, sizeof path, "/etc/ld.so.conf.d/%s", e->d_name);
        FILE *f = fopen(path, "r");
        while (f && fgets(line, sizeof line, f)) {
            line[strcspn(line, " \t\r\n#")] = 0;
            if (line[0] == '/') add_search_dir(line);
        }
        if (f) fclose(f);
    }
    if (d) closedir(d);
    const char *standard[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                              "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
                              "/usr/local/lib"};
    for (size_t i = 0; i < sizeof standard / sizeof *standard; i++) add_search_dir(standard[i]);
}

static name_set libraries_seen;

static void collect_shared(name_set *set, const char *path);

typedef struct needed_context { name_set *set; const char *skip; } needed_context;

static void collect_needed(const image *im, const Elf64_Ehdr *eh, void *context)
{
    needed_context *n = context;
    const char *needed[256];
    int count = 0;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        const Elf64_Shdr *sh = section(im, eh, i);
        if (!sh || sh->sh_type != SHT_DYNAMIC || !in_bounds(im, sh->sh_offset, sh->sh_size)) continue;
        const Elf64_Shdr *strtab = section(im, eh, sh->sh_link);
        for (size_t k = 0; k < sh->sh_size / sizeof(Elf64_Dyn); k++) {
            const Elf64_Dyn *dyn = (const Elf64_Dyn *)(im->data + sh->sh_offset) + k;
            const char *s = dyn->d_tag == DT_NEEDED || dyn->d_tag == DT_RUNPATH || dyn->d_tag == DT_RPATH
                                ? string_at(im, strtab, dyn->d_un.d_val) : NULL;
            if (!s) continue;
            if (dyn->d_tag == DT_NEEDED && count < 256) needed[count++] = s;
            if (dyn->d_tag != DT_NEEDED && s[0] == '/') {
                char copy[4096];
                snprintf(copy, sizeof copy, "%s", s);
                for (char *dir = strtok(copy, ":"); dir; dir = strtok(NULL, ":")) add_search_dir(dir);
            }
        }
    }
    /* The program interpreter (the dynamic loader) resolves names too. */
    if (eh->e_phoff && eh->e_phentsize == sizeof(Elf64_Phdr) &&
        in_bounds(im, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
        for (unsigned i = 0; i < eh->e_phnum; i++) {
            const Elf64_Phdr *ph = (const Elf64_Phdr *)(im->data + eh->e_phoff) + i;
            if (ph->p_type != PT_INTERP || !in_bounds(im, ph->p_offset, ph->p_filesz) || !ph->p_filesz) continue;
            const char *interp = (const char *)im->data + ph->p_offset;
            if (memchr(interp, 0, ph->p_filesz) && interp[0] == '/') collect_shared(n->set, interp);
        }
    for (int i = 0; i < count; i++) {
        if (n->skip && strcmp(needed[i], n->skip) == 0) continue;   /* the learner's own library: judged by its objects */
        if (strchr(needed[i], '/')) { collect_shared(n->set, needed[i]); continue; }
        int found = 0;
        for (int d = 0; d < search_dir_count && !found; d++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", search_dirs[d], needed[i]);
            struct stat st;
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                image probe = load(path);
                const Elf64_Ehdr *peh = elf_header(&probe);
                int usable = peh && peh->e_machine == eh->e_machine;
                free(probe.data);
                if (usable) { collect_shared(n->set, path); found = 1; }
            }
        }
        if (!found) fatal("%s needs %s, which is not in any library folder; cannot check against it", im->path, needed[i]);
    }
}

static void collect_shared(name_set *set, const char *path)
{
    char resolved[4096];
    if (!realpath(path, resolved)) fatal("cannot find %s", path);
    if (set_get(&libraries_seen, resolved)) return;
    set_add(&libraries_seen, resolved, "", DEFINED);
    /* the set's own copy of the path: the names collected keep pointers into it (into `resolved`,
     * a later library's path overwrote them, and a message named the wrong library) */
    const char *kept = set_get(&libraries_seen, resolved)->name;
    collect_file(set, kept);
    image im = load(kept);
    needed_context n = {set, NULL};
    each_elf(&im, collect_needed, &n);
    free(im.data);
}

/* ---------------------------------------------------------------------------------
 * Checking an edited object */

static int section_allowed(const char *name)
{
    static const char *families[] = {".text", ".data", ".bss", ".rodata", ".tdata", ".tbss", ".eh_frame",
                                     ".gcc_except_table", ".debug", ".zdebug", ".comment", ".note.GNU-stack",
                                     ".note.gnu.property", ".note.gnu.build-id", ".llvm_addrsig", ".llvm.",
                                     ".group", ".symtab", ".symtab_shndx", ".strtab", ".shstrtab", ".stack_sizes",
                                     ".ARM.attributes", ".riscv.attributes",
                                     /* the simulator's instrumentation: one counter per basic block */
                                     "__sancov_guards",
                                     /* the simulator's list of a file's kernels (lib/sim/tools/cu2sim): data,
                                        read only by cudaLaunchKernel */
                                     "sim_kernels"};
    if (!*name) return 1;
    if (strncmp(name, ".rela", 5) == 0) return section_allowed(name + 5);
    if (strncmp(name, ".rel", 4) == 0) return section_allowed(name + 4);
    for (size_t i = 0; i < sizeof families / sizeof *families; i++) {
        size_t n = strlen(families[i]);
        if (strncmp(name, families[i], n) == 0 &&
            (name[n] == 0 || name[n] == '.' || families[i][n - 1] == '.' || strcmp(families[i], ".debug") == 0 ||
             strcmp(families[i], ".zdebug") == 0))
            return 1;
    }
    return 0;
}

static int runs_at_startup(const char *name)
{
    static const char *families[] = {".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors"};
    if (strncmp(name, ".rela", 5) == 0) name += 5;
    else if (strncmp(name, ".rel", 4) == 0) name += 4;
    for (size_t i = 0; i < sizeof families / sizeof *families; i++)
        if (strncmp(name, families[i], strlen(families[i])) == 0) return 1;
    return strcmp(name, ".init") == 0 || strcmp(name, ".fini") == 0;
}

typedef struct check_context {
    const char *file;         /* the learner's file, for messages */
    name_set *book, *system;
} check_context;

static const char *framework_prefixes[] = {"criterion_", "cr_", "bxf_", "nn_", "nng_"};

static void check_symbol(const char *name, int how, int type, void *context)
{
    check_context *c = context;
    if (how == REFERENCED) {
        for (size_t i = 0; i < sizeof framework_prefixes / sizeof *framework_prefixes; i++)
            if (strncmp(name, framework_prefixes[i], strlen(framework_prefixes[i])) == 0) {
                violation("%s: uses %s, a part of the test framework; a lab's code may not call into the tests.",
                          c->file, name);
                return;
            }
        return;
    }
    entry *sys = set_get(c->system, name);
    if (sys) {
        violation("%s: defines %s, a name %s already %s; that would replace the library's own everywhere in "
                  "the program. Make it static or rename it.", c->file, name, sys->file,
                  sys->how & (DEFINED | WEAK_DEFINED) ? "defines" : "uses");
        return;
    }
    entry *book = set_get(c->book, name);
    if (book && (book->how & (DEFINED | WEAK_DEFINED)) && !(how == WEAK_DEFINED && !(book->how & DEFINED)))
        violation("%s: defines %s, which the lab's own code (%s) also defines. Make yours static or rename it.",
                  c->file, name, book->file);
}

/* The one relocation section that applies to section `target`; NULL when there is none, or
 * more than one (the linker would apply them all: a second one could rewrite what the first says). */
static const Elf64_Shdr *relocations_for(const image *im, const Elf64_Ehdr *eh, unsigned target)
{
    const Elf64_Shdr *found = NULL;
    for (unsigned i = 1; i < eh->e_shnum; i++) {
        const Elf64_Shdr *sh = section(im, eh, i);
        if (sh && (sh->sh_type == SHT_RELA || sh->sh_type == SHT_REL) && sh->sh_info == target) {
            if (found || sh->sh_type != SHT_RELA) return NULL;
            found = sh;
        }
    }
    return found;
}

/* The symbol a relocation names; also, through `where`, the index of the section it is defined in
 * and the offset in that section the relocation points at (the symbol's value plus the addend). */
static const Elf64_Sym *relocation_target(const image *im, const Elf64_Ehdr *eh, const Elf64_Shdr *rela,
                                          const Elf64_Rela *r, unsigned *where, int64_t *offset)
{
    const Elf64_Shdr *symtab = section(im, eh, rela->sh_link);
    if (!symtab || symtab->sh_entsize != sizeof(Elf64_Sym) || !in_bounds(im, symtab->sh_offset, symtab->sh_size)) return NULL;
    size_t index = ELF64_R_SYM(r->r_info);
    if (index >= symtab->sh_size / sizeof(Elf64_Sym)) return NULL;
    const Elf64_Sym *sym = (const Elf64_Sym *)(im->data + symtab->sh_offset) + index;
    if (where) *where = sym->st_shndx;
    if (offset) *offset = (int64_t)sym->st_value + r->r_addend;
    return sym;
}

static const char *relocation_symbol(const image *im, const Elf64_Ehdr *eh, const Elf64_Shdr *rela, const Elf64_Rela *r,
                                     const Elf64_Shdr *names)
{
    const Elf64_Sym *sym = relocation_target(im, eh, rela, r, NULL, NULL);
    if (!sym) return NULL;
    if (ELF64_ST_TYPE(sym->st_info) == STT_SECTION) {
        const Elf64_Shdr *target = section(im, eh, sym->st_shndx);
        return target ? string_at(im, names, target->sh_name) : NULL;
    }
    const Elf64_Shdr *symtab = section(im, eh, rela->sh_link);
    return string_at(im, section(im, eh, symtab->sh_link), sym->st_name);
}

/* The one thing that may run at start-up from a learner's object on the sim backend: the
 * constructor clang's coverage instrumentation (which lib/sim/tools/simcc turns on) adds to every
 * object. It is accepted only if it is that stub exactly, byte for byte, with relocations only to
 * the guard section's bounds and the simulator's __sanitizer_cov_trace_pc_guard_init, each of the
 * one kind the compiler writes there. On x86-64:
 *     push %rax; mov __start___sancov_guards@GOTPCREL(%rip),%rdi;
 *     mov __stop___sancov_guards@GOTPCREL(%rip),%rsi; call __sanitizer_cov_trace_pc_guard_init; pop %rax; ret
 * On arm64 (make test-arm64):
 *     stp x29, x30, [sp, #-16]!; mov x29, sp; adrp x0, :got:__start___sancov_guards;
 *     adrp x1, :got:__stop___sancov_guards; ldr x0, [x0, :got_lo12:...]; ldr x1, [x1, :got_lo12:...];
 *     bl __sanitizer_cov_trace_pc_guard_init; ldp x29, x30, [sp], #16; ret */
typedef struct coverage_relocation {
    uint64_t at;            /* the offset it fills */
    unsigned types[3];      /* the kinds accepted there (0: none) */
    const char *symbol;     /* the undefined symbol it names */
    int addend_checked;     /* whether its addend must be 0 (x86-64's PC-relative fields carry -4) */
} coverage_relocation;

typedef struct coverage_stub {
    unsigned machine;                     /* e_machine */
    const unsigned char *bytes;
    size_t size;
    unsigned char relocated[40];          /* 1 where the relocations fill a byte, whatever the object holds */
    unsigned table_entry;                 /* the .init_array entry's relocation */
    size_t relocation_count;
    coverage_relocation relocations[5];
} coverage_stub;

static const unsigned char x86_64_stub[22] = {0x50, 0x48, 0x8b, 0x3d, 0, 0, 0, 0, 0x48, 0x8b, 0x35, 0, 0, 0, 0, 0xe8,
                                              0, 0, 0, 0, 0x58, 0xc3};
static const unsigned char aarch64_stub[36] = {0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91, 0x00, 0x00, 0x00, 0x90,
                                               0x01, 0x00, 0x00, 0x90, 0x00, 0x00, 0x40, 0xf9, 0x21, 0x00, 0x40, 0xf9,
                                               0x00, 0x00, 0x00, 0x94, 0xfd, 0x7b, 0xc1, 0xa8, 0xc0, 0x03, 0x5f, 0xd6};
static const coverage_stub coverage_stubs[] = {
    {EM_X86_64, x86_64_stub, sizeof x86_64_stub,
     {[4] = 1, 1, 1, 1, [11] = 1, 1, 1, 1, [16] = 1, 1, 1, 1}, R_X86_64_64, 3,
     {{4, {R_X86_64_GOTPCREL, R_X86_64_GOTPCRELX, R_X86_64_REX_GOTPCRELX}, "__start___sancov_guards", 0},
      {11, {R_X86_64_GOTPCREL, R_X86_64_GOTPCRELX, R_X86_64_REX_GOTPCRELX}, "__stop___sancov_guards", 0},
      {16, {R_X86_64_PLT32, R_X86_64_PC32, 0}, "__sanitizer_cov_trace_pc_guard_init", 0}}},
    /* arm64's relocations fill immediates that the object leaves 0: every byte is compared */
    {EM_AARCH64, aarch64_stub, sizeof aarch64_stub, {0}, R_AARCH64_ABS64, 5,
     {{8, {R_AARCH64_ADR_GOT_PAGE, 0, 0}, "__start___sancov_guards", 1},
      {12, {R_AARCH64_ADR_GOT_PAGE, 0, 0}, "__stop___sancov_guards", 1},
      {16, {R_AARCH64_LD64_GOT_LO12_NC, 0, 0}, "__start___sancov_guards", 1},
      {20, {R_AARCH64_LD64_GOT_LO12_NC, 0, 0}, "__stop___sancov_guards", 1},
      {24, {R_AARCH64_CALL26, 0, 0}, "__sanitizer_cov_trace_pc_guard_init", 1}}},
};

static int is_coverage_constructor(const image *im, const Elf64_Ehdr *eh, unsigned init_index, const Elf64_Shdr *names)
{
    const coverage_stub *stub = NULL;
    for (size_t k = 0; k < sizeof coverage_stubs / sizeof *coverage_stubs; k++)
        if (coverage_stubs[k].machine == eh->e_machine) stub = &coverage_stubs[k];
    if (!stub) return 0;
    const Elf64_Shdr *init = section(im, eh, init_index), *rela = relocations_for(im, eh, init_index);
    if (!init || init->sh_size != 8 || !rela || rela->sh_size != sizeof(Elf64_Rela) ||
        !in_bounds(im, rela->sh_offset, rela->sh_size))
        return 0;
    /* The entry is judged by the section it really points at (its index, not its name: two sections
     * may share a name), at its first byte, through the one kind of relocation a constructor table uses. */
    const Elf64_Rela *entry = (const Elf64_Rela *)(im->data + rela->sh_offset);
    unsigned i;
    int64_t offset;
    if (entry->r_offset != 0 || ELF64_R_TYPE(entry->r_info) != stub->table_entry ||
        !relocation_target(im, eh, rela, entry, &i, &offset) || offset != 0 || i == 0 || i >= eh->e_shnum)
        return 0;
    const Elf64_Shdr *code = section(im, eh, i);
    const char *name = code ? string_at(im, names, code->sh_name) : NULL;
    if (!name || strcmp(name, ".text.sancov.module_ctor_trace_pc_guard") != 0) return 0;
    if (code->sh_size != stub->size || !in_bounds(im, code->sh_offset, stub->size)) return 0;
    const unsigned char *bytes = im->data + code->sh_offset;
    for (size_t k = 0; k < stub->size; k++)
        if (!stub->relocated[k] && bytes[k] != stub->bytes[k]) return 0;
    const Elf64_Shdr *code_rela = relocations_for(im, eh, i);
    if (!code_rela || !in_bounds(im, code_rela->sh_offset, code_rela->sh_size)) return 0;
    if (code_rela->sh_size / sizeof(Elf64_Rela) != stub->relocation_count) return 0;
    for (size_t k = 0; k < stub->relocation_count; k++) {
        const coverage_relocation *want = &stub->relocations[k];
        const Elf64_Rela *r = (const Elf64_Rela *)(im->data + code_rela->sh_offset) + k;
        unsigned type = ELF64_R_TYPE(r->r_info);
        int right_type = type != 0 && (type == want->types[0] || type == want->types[1] || type == want->types[2]);
        const char *symbol = relocation_symbol(im, eh, code_rela, r, names);
        unsigned defined_in;
        /* and names the simulator's own symbol: one this object leaves undefined, not a look-alike of its own */
        if (!relocation_target(im, eh, code_rela, r, &defined_in, NULL) || defined_in != SHN_UNDEF) return 0;
        if (r->r_offset != want->at || !right_type || !symbol || strcmp(symbol, want->symbol) != 0) return 0;
        if (want->addend_checked && r->r_addend != 0) return 0;
    }
    return 1;
}

/* What no lab's code calls, refused by name: each can rewrite the program's own code or tables
 * (changing memory's protection, looking functions up by name to replace them, loading more code) or
 * reach into another process. A test's worker runs the learner's code; with these it could make the
 * test's own checks lie (the README's "what it does not guarantee"). */
static const char *refused_calls[] = {
    "dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr", "dladdr1", "dlinfo", "dl_iterate_phdr", "_dl_find_object",
    "mprotect", "pkey_mprotect", "mmap", "mmap64", "mremap", "munmap", "madvise", "syscall",
    "process_vm_readv", "process_vm_writev", "ptrace", "prctl", "personality", "execve", "execv", "execvp",
    "execvpe", "execl", "execlp", "execle", "fexecve", "system", "popen", "posix_spawn", "posix_spawnp",
    "__libc_dlopen_mode", "__libc_dlsym"};

/* Every symbol of an object, local ones too (each_symbol leaves those out): no indirect function of any
 * binding, no definition of a name the linker gives a section's ends, no call refused above. */
static void check_every_symbol(const image *im, const Elf64_Ehdr *eh, const check_context *c)
{
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        const Elf64_Shdr *sh = section(im, eh, i);
        if (!sh || sh->sh_type != SHT_SYMTAB || sh->sh_entsize != sizeof(Elf64_Sym)) continue;
        if (!in_bounds(im, sh->sh_offset, sh->sh_size)) fatal("%s: a symbol table runs past the end of the file", im->path);
        const Elf64_Shdr *strtab = section(im, eh, sh->sh_link);
        for (size_t k = 1; k < sh->sh_size / sizeof(Elf64_Sym); k++) {
            const Elf64_Sym *sym = (const Elf64_Sym *)(im->data + sh->sh_offset) + k;
            const char *name = string_at(im, strtab, sym->st_name);
            if (!name) continue;
            if (ELF64_ST_TYPE(sym->st_info) == STT_GNU_IFUNC)
                violation("%s: %s is an indirect function (its resolver would run while the program loads); "
                          "write an ordinary function.", c->file, *name ? name : "a nameless symbol");
            if (sym->st_shndx != SHN_UNDEF && (strncmp(name, "__start_", 8) == 0 || strncmp(name, "__stop_", 7) == 0))
                violation("%s: defines %s, a name the linker gives to the ends of a section; the book's code "
                          "relies on the linker's. Rename it.", c->file, unversioned(name));
            if (sym->st_shndx != SHN_UNDEF) continue;
            const char *called = unversioned(name);
            for (size_t r = 0; r < sizeof refused_calls / sizeof *refused_calls; r++)
                if (strcmp(called, refused_calls[r]) == 0)
                    violation("%s: calls %s, which no lab needs: it can change the program's own code, memory or "
                              "loaded libraries, or start or reach other programs, so the grader refuses it.",
                              c->file, called);
        }
    }
}

static void check_object(const image *im, const Elf64_Ehdr *eh, void *context)
{
    check_context *c = context;
    if (eh->e_type != ET_REL) {
        violation("%s: is not an ordinary compiled object.", c->file);
        return;
    }
    const Elf64_Shdr *names = section(im, eh, eh->e_shstrndx);
    int constructors = 0, constructor_sections = 0;
    for (unsigned i = 1; i < eh->e_shnum; i++) {
        const Elf64_Shdr *sh = section(im, eh, i);
        const char *name = sh ? string_at(im, names, sh->sh_name) : NULL;
        if (!name) { violation("%s: has a damaged section table.", c->file); return; }
        if (sh->sh_type == SHT_RELA || sh->sh_type == SHT_REL) continue;   /* their target is checked itself */
        if (strcmp(name, ".text.sancov.module_ctor_trace_pc_guard") == 0 && ++constructor_sections == 2)
            violation("%s: has two sections named %s: the compiler makes one; a second is code made to look like it.",
                      c->file, name);
        if (sh->sh_type == SHT_INIT_ARRAY && is_coverage_constructor(im, eh, i, names) && ++constructors == 1) continue;
        if (sh->sh_type == SHT_INIT_ARRAY || sh->sh_type == SHT_PREINIT_ARRAY || sh->sh_type == SHT_FINI_ARRAY ||
            runs_at_startup(name))
            violation("%s: has code that runs before or after main() (section %s): a global C++ object with a "
                      "constructor, a global initialised by calling a function, or __attribute__((constructor)). "
                      "Do that work inside your functions instead.", c->file, name);
        else if (!section_allowed(name))
            violation("%s: has a section named '%s', which a compiler does not make for ordinary code and data; "
                      "remove the attribute or assembly that puts it there.", c->file, name);
    }
    each_symbol(im, eh, SHT_SYMTAB, check_symbol, context);
    check_every_symbol(im, eh, c);
}

/* ---------------------------------------------------------------------------------
 * main */

/* The learner's library as linked (tools/build/build-lab's liblab-code.so): nothing in it may run while it
 * loads but what the objects were judged to hold, so no relocation that calls an indirect function's
 * resolver, whatever object or library it came from. */
static void check_code_library(const image *im, const Elf64_Ehdr *eh, void *context)
{
    (void)context;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        const Elf64_Shdr *sh = section(im, eh, i);
        if (!sh || sh->sh_type != SHT_RELA || sh->sh_entsize != sizeof(Elf64_Rela)) continue;
        if (!in_bounds(im, sh->sh_offset, sh->sh_size)) fatal("%s: a relocation table runs past the end of the file", im->path);
        for (size_t k = 0; k < sh->sh_size / sizeof(Elf64_Rela); k++) {
            const Elf64_Rela *r = (const Elf64_Rela *)(im->data + sh->sh_offset) + k;
            unsigned type = ELF64_R_TYPE(r->r_info);
            if ((eh->e_machine == EM_X86_64 && type == R_X86_64_IRELATIVE) ||
                (eh->e_machine == EM_AARCH64 && type == R_AARCH64_IRELATIVE)) {
                violation("your code: the library linked from it calls an indirect function's resolver while it "
                          "loads; write ordinary functions.");
                return;
            }
        }
    }
}

int main(int argc, char **argv)
{
    const char *program = NULL, *code = NULL;
    const char *edited[64];
    const char *book_files[256], *system_files[256];
    int edited_count = 0, book_count = 0, system_count = 0, mode = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--program") == 0 && i + 1 < argc) program = argv[++i];
        else if (strcmp(argv[i], "--code") == 0 && i + 1 < argc) code = argv[++i];
        else if (strcmp(argv[i], "--edited") == 0) mode = 1;
        else if (strcmp(argv[i], "--book") == 0) mode = 2;
        else if (strcmp(argv[i], "--system") == 0) mode = 3;
        else if (mode == 1 && edited_count < 64) edited[edited_count++] = argv[i];
        else if (mode == 2 && book_count < 256) book_files[book_count++] = argv[i];
        else if (mode == 3 && system_count < 256) system_files[system_count++] = argv[i];
        else fatal("usage: lab-policy --program TESTS --code CODE.so --edited OBJ... --book OBJ|LIB... --system OBJ|LIB...");
    }
    if (!program || !code || !edited_count)
        fatal("usage: lab-policy --program TESTS --code CODE.so --edited OBJ... --book OBJ|LIB... --system OBJ|LIB...");

    name_set book = {0}, system = {0};
    for (int i = 0; i < book_count; i++) collect_file(&book, book_files[i]);
    for (int i = 0; i < system_count; i++) collect_file(&system, system_files[i]);
    read_ld_so_conf();
    /* the libraries the program and the learner's library load, but the learner's library itself */
    image prog = load(program), lib = load(code);
    needed_context n = {&system, base_name(code)};
    each_elf(&prog, collect_needed, &n);
    each_elf(&lib, collect_needed, &n);
    each_elf(&lib, check_code_library, NULL);
    free(prog.data);
    free(lib.data);
    if (!set_get(&system, "malloc")) fatal("found no C library behind %s; cannot check against it", program);

    for (int i = 0; i < edited_count; i++) {
        /* "path/obj/vector_add.o=vector_add.cu" names the learner's file in messages */
        char *path = strdup(edited[i]), *shown = strchr(path, '=');
        if (shown) *shown++ = 0;
        check_context c = {shown ? shown : base_name(path), &book, &system};
        image im = load(path);
        each_elf(&im, check_object, &c);
        free(im.data);
    }
    return failures ? 1 : 0;
}
