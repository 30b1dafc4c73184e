/*
 * config-bench.c: throughput of the config front end next to a bare libyaml event loop.
 *
 * Generates a few thousand deployment manifests in memory (Kubernetes Deployments with argv
 * lists and bash -c scripts, production-stack Helm values, compose files, vLLM --config files,
 * and unrelated ConfigMaps), then times (best of several rounds) 1) libyaml parsing every event
 * and nothing else, 2) config_frontend.analyze() on the same buffers with a fresh file_facts each
 * (prefilter deliberately skipped, so every byte is parsed). Prints MB/s for both and the ratio;
 * the target is at most 2x the bare loop. Not part of `make check`: run `make bench-config`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "project/project.h"
#include "facts/facts.h"
#include "scan/frontend.h"
#include "util/strbuf.h"

enum { NFILES = 3000, ROUNDS = 5 };

static unsigned rng_state = 12345;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

static const char *const dtypes[] = { "auto", "half", "bfloat16", "float16" };
static const char *const kvs[] = { "auto", "fp8", "fp8_e4m3", "fp8_e5m2", "bfloat16" };

static void labels(strbuf *sb, int indent, int n)
{
    for (int i = 0; i < n; i++)
        sb_addf(sb, "%*sapp.kubernetes.io/label-%d: \"value-%u\"\n", indent, "", i, rnd(100000));
}

static void k8s(strbuf *sb, int i)
{
    sb_addf(sb, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: model-%d\n  labels:\n", i);
    labels(sb, 4, 6);
    sb_adds(sb, "spec:\n  replicas: 2\n  template:\n    metadata:\n      annotations:\n");
    labels(sb, 8, 4);
    sb_adds(sb, "    spec:\n      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.9.2\n"
                "          args:\n            - ibm-granite/granite-3.3-8b-instruct\n");
    sb_addf(sb, "            - --dtype\n            - %s\n            - \"--kv-cache-dtype=%s\"\n",
            dtypes[rnd(4)], kvs[rnd(5)]);
    sb_addf(sb, "            - --max-model-len=%u\n            - --gpu-memory-utilization\n            - \"0.9\"\n",
            1024u << rnd(6));
    sb_adds(sb, "          resources:\n            limits: {nvidia.com/gpu: 1, memory: 64Gi}\n"
                "          env:\n            - {name: HF_HOME, value: /data}\n"
                "            - name: VLLM_ADDITIONAL_ARGS\n              value: \"--max-loras 4 --enable-lora\"\n"
                "        - name: sidecar\n          image: busybox\n          command: [sh, -c]\n          args:\n"
                "            - |\n              while true; do\n                echo alive\n                sleep 30\n"
                "              done\n---\n");
    sb_addf(sb, "apiVersion: v1\nkind: Service\nmetadata: {name: model-%d}\nspec:\n  ports: [{port: 80, "
                "targetPort: 8000}]\n  selector: {app: model-%d}\n", i, i);
}

static void helm(strbuf *sb, int i)
{
    sb_adds(sb, "servingEngineSpec:\n  runtimeClassName: nvidia\n  modelSpec:\n");
    for (int k = 0; k < 3; k++) {
        sb_addf(sb, "    - name: \"m%d-%d\"\n      repository: \"vllm/vllm-openai\"\n      tag: \"latest\"\n"
                    "      modelURL: \"org/model-%u\"\n      replicaCount: 1\n      requestCPU: 6\n"
                    "      requestMemory: \"16Gi\"\n      requestGPU: 1\n      pvcStorage: \"50Gi\"\n"
                    "      vllmConfig:\n        maxModelLen: %u\n        dtype: \"%s\"\n        maxLoras: 4\n"
                    "        extraArgs: [\"--kv-cache-dtype\", \"%s\", \"--disable-log-requests\"]\n",
                i, k, rnd(1000), 1024u << rnd(5), dtypes[rnd(4)], kvs[rnd(5)]);
        labels(sb, 6, 3);
    }
}

static void compose(strbuf *sb, int i)
{
    (void)i;
    sb_addf(sb, "services:\n  vllm:\n    image: vllm/vllm-openai:latest\n    command: --model org/m --dtype %s "
                "--kv-cache-dtype %s --max-model-len 8192\n    ports: [\"8000:8000\"]\n    volumes:\n"
                "      - ~/.cache/huggingface:/root/.cache/huggingface\n    deploy:\n      resources:\n"
                "        reservations:\n          devices: [{driver: nvidia, count: all, capabilities: [gpu]}]\n"
                "  web:\n    image: nginx\n    environment:\n      - TZ=UTC\n",
            dtypes[rnd(4)], kvs[rnd(5)]);
}

static void vllm_config(strbuf *sb, int i)
{
    sb_addf(sb, "model: org/model-%d\nhost: 0.0.0.0\nport: 8000\ntensor-parallel-size: 2\ndtype: %s\n"
                "kv-cache-dtype: %s   # chosen by capacity planning\nmax_model_len: %u\ngpu-memory-utilization: 0.9\n"
                "enable-prefix-caching: true\n",
            i, dtypes[rnd(4)], kvs[rnd(5)], 1024u << rnd(6));
}

static void configmap(strbuf *sb, int i)
{
    sb_addf(sb, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-%d\ndata:\n", i);
    for (int k = 0; k < 40; k++)
        sb_addf(sb, "  key_%d: \"some value %u with words in it\"\n", k, rnd(1000000));
}

typedef struct corpus {
    char *data[NFILES];
    size_t len[NFILES];
    size_t bytes;
} corpus;

static void generate(corpus *c)
{
    for (int i = 0; i < NFILES; i++) {
        strbuf sb = STRBUF_INIT;
        switch (i % 5) {
        case 0: k8s(&sb, i); break;
        case 1: helm(&sb, i); break;
        case 2: compose(&sb, i); break;
        case 3: vllm_config(&sb, i); break;
        default: configmap(&sb, i); break;
        }
        c->len[i] = sb.len;
        c->bytes += sb.len;
        c->data[i] = sb_detach(&sb);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t bare_loop(const corpus *c)
{
    size_t events = 0;
    for (int i = 0; i < NFILES; i++) {
        yaml_parser_t p;
        yaml_parser_initialize(&p);
        yaml_parser_set_input_string(&p, (const unsigned char *)c->data[i], c->len[i]);
        for (;;) {
            yaml_event_t e;
            if (!yaml_parser_parse(&p, &e))
                break;
            int done = e.type == YAML_STREAM_END_EVENT;
            yaml_event_delete(&e);
            events++;
            if (done)
                break;
        }
        yaml_parser_delete(&p);
    }
    return events;
}

static size_t front_end(const corpus *c, const kv_project *proj)
{
    static const char *const names[5] = { "k8s.yaml", "values.yaml", "compose.yaml", "serve.yaml", "cm.yaml" };
    fe_context ctx = { .project = proj };
    size_t decls = 0;
    for (int i = 0; i < NFILES; i++) {
        file_facts *f = file_facts_new(names[i % 5]);
        config_frontend.analyze(names[i % 5], c->data[i], c->len[i], &ctx, f);
        decls += f->decls.n;
        file_facts_free(f);
    }
    return decls;
}

int main(void)
{
    corpus *c = calloc(1, sizeof *c);
    if (!c)
        return 2;
    generate(c);
    kv_project *proj = project_default(".");
    double best_bare = 1e9, best_fe = 1e9;
    size_t events = 0, decls = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now();
        events = bare_loop(c);
        double t1 = now();
        decls = front_end(c, proj);
        double t2 = now();
        if (t1 - t0 < best_bare)
            best_bare = t1 - t0;
        if (t2 - t1 < best_fe)
            best_fe = t2 - t1;
    }
    double mb = c->bytes / 1e6;
    printf("config-bench: %d manifests, %.2f MB, %zu YAML events, %zu declarations (best of %d rounds)\n", NFILES,
           mb, events, decls, ROUNDS);
    printf("  bare libyaml event loop : %8.1f MB/s\n", mb / best_bare);
    printf("  config front end        : %8.1f MB/s\n", mb / best_fe);
    printf("  front end / bare        : %8.2fx (target <= 2x)\n", best_fe / best_bare);
    project_free(proj);
    for (int i = 0; i < NFILES; i++)
        free(c->data[i]);
    free(c);
    return 0;
}
