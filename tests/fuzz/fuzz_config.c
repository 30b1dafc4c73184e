/* fuzz_config.c: the config front end per carrier. The first byte picks the file name (and so
 * the carrier: YAML, JSON, shell script, Dockerfile, env file, systemd unit); the rest is the file. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {
        "deploy.yaml", "config.json", "serve.sh", "Dockerfile", "deploy.env", "values.yml",
        "hf_quant_config.json", "docker-compose.yaml", "vllm.service",
    };
    if (size == 0)
        return 0;
    const char *name = names[data[0] % (sizeof names / sizeof *names)];
    fuzz_frontend(&config_frontend, name, data + 1, size - 1);
    return 0;
}
