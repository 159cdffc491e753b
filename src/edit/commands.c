/* The table of edit commands: one row per command, each defined in its own file. */
#include "config.h"

#include <string.h>

#include "src/edit/internal.h"

static const struct edit_cmd *const commands[] = {
	&edit_set_dim_cmd,
	&edit_set_shape_cmd,
	&edit_set_type_cmd,
	&edit_set_tensor_cmd,
	&edit_set_attr_cmd,
	&edit_del_attr_cmd,
	&edit_set_op_cmd,
	&edit_rename_cmd,
	&edit_rename_node_cmd,
	&edit_make_input_cmd,
	&edit_make_constant_cmd,
	&edit_delete_node_cmd,
	&edit_add_output_cmd,
	&edit_del_output_cmd,
	&edit_extract_cmd,
	&edit_set_opset_cmd,
	&edit_cleanup_cmd,
	&edit_undo_cmd,
	&edit_redo_cmd,
	&edit_save_cmd,
	&edit_journal_cmd,
};

const struct edit_cmd *const *edit_commands(size_t *n)
{
	*n = sizeof commands / sizeof commands[0];
	return commands;
}

const struct edit_cmd *edit_find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}
