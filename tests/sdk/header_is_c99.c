/* Compiled with -std=c99 -pedantic -Werror: the ABI header must stay plain C99. */
#include <agentrt/agentrt_plugin.h>

size_t agentrt_c99_descriptor_size(void);
size_t agentrt_c99_descriptor_size(void) { return sizeof(agentrt_plugin_descriptor_t); }
