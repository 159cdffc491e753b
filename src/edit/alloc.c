/* Model memory for the edit commands: deep copies of messages and arrays grown by one, with the model's allocator
 * (what a command adds to the model must be freed the way the model frees it). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/edit/internal.h"

void *edit_copy_message(struct edit_session *s, const ProtobufCMessage *msg)
{
	size_t len = protobuf_c_message_get_packed_size(msg);
	uint8_t *buf = malloc(len ? len : 1);
	ProtobufCMessage *copy;

	if (!buf)
		return NULL;
	protobuf_c_message_pack(msg, buf);
	copy = protobuf_c_message_unpack(msg->descriptor, &s->m->alloc, len, buf);
	free(buf);
	return copy;
}

void *edit_array_grow(struct edit_session *s, void *old, size_t n, size_t size)
{
	char *na = s->m->alloc.alloc(s->m->alloc.allocator_data, (n + 1) * size);

	if (!na)
		return NULL;
	if (n)
		memcpy(na, old, n * size);
	if (old)
		s->m->alloc.free(s->m->alloc.allocator_data, old);
	return na;
}
