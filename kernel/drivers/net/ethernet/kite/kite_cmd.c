// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kite command channel: a ring of 256-byte entries in coherent DMA memory,
 * served in order by the card's firmware. One command is in flight at a
 * time. Until the async EQ exists the driver polls the entry's done byte;
 * afterwards it sleeps until the CMD_DONE event carrying its token.
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>

#include "kite.h"

#define KITE_CMD_ENTRIES	BIT(KITE_CMD_LOG_SIZE)

int kite_cmd_init(struct kite_dev *kdev)
{
	struct kite_cmdq *cmd = &kdev->cmd;
	struct device *dev = kite_dev_dev(kdev);
	size_t sz = KITE_CMD_ENTRIES * sizeof(struct kite_cmd_entry);

	mutex_init(&cmd->lock);
	mutex_init(&cmd->mbox_lock);
	init_completion(&cmd->done);

	/* Coherent allocations are page aligned, which covers the 4 KiB rule. */
	cmd->ring = dma_alloc_coherent(dev, sz, &cmd->dma, GFP_KERNEL);
	if (!cmd->ring)
		return -ENOMEM;
	cmd->mbox = dma_alloc_coherent(dev, PAGE_SIZE, &cmd->mbox_dma,
				       GFP_KERNEL);
	if (!cmd->mbox) {
		dma_free_coherent(dev, sz, cmd->ring, cmd->dma);
		cmd->ring = NULL;
		return -ENOMEM;
	}

	cmd->pi = 0;
	cmd->use_events = false;
	/* The base may only change while the ring is disabled. */
	kite_wr32(kdev, KITE_REG_CMDQ_LOG_SIZE, 0);
	kite_wr32(kdev, KITE_REG_CMDQ_BASE_LO, lower_32_bits(cmd->dma));
	kite_wr32(kdev, KITE_REG_CMDQ_BASE_HI, upper_32_bits(cmd->dma));
	kite_wr32(kdev, KITE_REG_CMDQ_LOG_SIZE, KITE_CMD_LOG_SIZE);
	return 0;
}

void kite_cmd_cleanup(struct kite_dev *kdev)
{
	struct kite_cmdq *cmd = &kdev->cmd;
	struct device *dev = kite_dev_dev(kdev);

	if (!cmd->ring)
		return;
	kite_wr32(kdev, KITE_REG_CMDQ_LOG_SIZE, 0);
	dma_free_coherent(dev, PAGE_SIZE, cmd->mbox, cmd->mbox_dma);
	dma_free_coherent(dev, KITE_CMD_ENTRIES * sizeof(struct kite_cmd_entry),
			  cmd->ring, cmd->dma);
	cmd->ring = NULL;
	cmd->mbox = NULL;
}

void kite_cmd_use_events(struct kite_dev *kdev, bool on)
{
	mutex_lock(&kdev->cmd.lock);
	kdev->cmd.use_events = on;
	mutex_unlock(&kdev->cmd.lock);
}

/* Called from the async EQ interrupt for a CMD_DONE event. */
void kite_cmd_event(struct kite_dev *kdev, u32 token)
{
	if (token == READ_ONCE(kdev->cmd.wait_token))
		complete(&kdev->cmd.done);
}

static int kite_cmd_status_errno(u8 status)
{
	switch (status) {
	case KITE_CMD_STATUS_OK:
		return 0;
	case KITE_CMD_STATUS_BAD_OPCODE:
	case KITE_CMD_STATUS_BAD_VERSION:
	case KITE_CMD_STATUS_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case KITE_CMD_STATUS_BAD_PARAM:
	case KITE_CMD_STATUS_BAD_SIZE:
	case KITE_CMD_STATUS_BAD_STATE:
		return -EINVAL;
	case KITE_CMD_STATUS_NO_RESOURCES:
		return -ENOSPC;
	case KITE_CMD_STATUS_BAD_OBJECT:
		return -ENOENT;
	case KITE_CMD_STATUS_WRONG_OWNER:
	case KITE_CMD_STATUS_NOT_PERMITTED:
		return -EPERM;
	case KITE_CMD_STATUS_BUSY:
		return -EBUSY;
	default:
		return -EIO;
	}
}

static bool kite_cmd_wait(struct kite_dev *kdev, struct kite_cmd_entry *e,
			  bool events)
{
	u8 done;

	if (events) {
		wait_for_completion_timeout(&kdev->cmd.done,
					    msecs_to_jiffies(KITE_CMD_TIMEOUT_MS));
		/* The card sets done before it posts CMD_DONE. */
		return READ_ONCE(e->done);
	}
	return !read_poll_timeout(READ_ONCE, done, done, 10,
				  KITE_CMD_TIMEOUT_MS * USEC_PER_MSEC, false,
				  e->done);
}

int kite_cmd_exec_flags(struct kite_dev *kdev, u16 opcode, const void *in,
			size_t in_len, void *out, size_t out_len,
			u32 *syndrome, u32 flags)
{
	struct kite_cmdq *cmd = &kdev->cmd;
	struct device *dev = kite_dev_dev(kdev);
	struct kite_cmd_entry *e;
	u32 syn, token;
	bool events;
	u8 status;
	int err;

	if (in_len > KITE_CMD_IN_SIZE || out_len > KITE_CMD_OUT_SIZE)
		return -EINVAL;

	mutex_lock(&cmd->lock);
	e = &cmd->ring[cmd->pi & (KITE_CMD_ENTRIES - 1)];
	events = cmd->use_events;
	token = ++cmd->token;

	memset(e, 0, sizeof(*e));
	e->opcode = cpu_to_le16(opcode);
	e->version = 1;
	e->flags = events ? KITE_CMD_ENTRY_FLAGS_EVENT : 0;
	e->token = cpu_to_le32(token);
	if (in_len)
		memcpy(e->in, in, in_len);

	reinit_completion(&cmd->done);
	WRITE_ONCE(cmd->wait_token, token);
	cmd->pi++;
	/* writel orders the entry's stores before the doorbell. */
	kite_wr32(kdev, KITE_REG_CMDQ_PI, cmd->pi);

	if (!kite_cmd_wait(kdev, e, events)) {
		dev_err_ratelimited(dev,
				    "command %s (0x%x) timed out after %u ms (CMDQ_PI %u, CMDQ_CI %u)\n",
				    kite_cmd_opcode_str(opcode), opcode,
				    KITE_CMD_TIMEOUT_MS,
				    kite_rd32(kdev, KITE_REG_CMDQ_PI),
				    kite_rd32(kdev, KITE_REG_CMDQ_CI));
		WRITE_ONCE(cmd->wait_token, 0);
		mutex_unlock(&cmd->lock);
		return -ETIMEDOUT;
	}
	WRITE_ONCE(cmd->wait_token, 0);
	/* Read the results only after done. */
	dma_rmb();
	status = READ_ONCE(e->status);
	syn = le32_to_cpu(READ_ONCE(e->syndrome));
	if (out && out_len)
		memcpy(out, e->out, out_len);
	mutex_unlock(&cmd->lock);

	if (syndrome)
		*syndrome = syn;
	err = kite_cmd_status_errno(status);
	if (err && !(flags & KITE_CMD_QUIET))
		dev_err_ratelimited(dev,
				    "command %s (0x%x) failed: status %s (0x%x), syndrome %s (0x%x)\n",
				    kite_cmd_opcode_str(opcode), opcode,
				    kite_cmd_status_str(status), status,
				    kite_syndrome_str(syn), syn);
	return err;
}

int kite_cmd_exec(struct kite_dev *kdev, u16 opcode, const void *in,
		  size_t in_len, void *out, size_t out_len)
{
	return kite_cmd_exec_flags(kdev, opcode, in, in_len, out, out_len,
				   NULL, 0);
}

int kite_destroy_obj(struct kite_dev *kdev, u16 opcode, u32 id)
{
	struct kite_obj_in in = { .id = cpu_to_le32(id) };

	return kite_cmd_exec(kdev, opcode, &in, sizeof(in), NULL, 0);
}

int kite_query_port(struct kite_dev *kdev, struct kite_port_info *info)
{
	struct kite_obj_in in = { .id = cpu_to_le32(kdev->port) };

	return kite_cmd_exec(kdev, KITE_CMD_OPCODE_QUERY_PORT, &in, sizeof(in),
			     info, sizeof(*info));
}

int kite_set_port(struct kite_dev *kdev, u16 mask, bool admin_up, u16 mtu)
{
	struct kite_port_info in = {
		.port = kdev->port,
		.admin_up = admin_up,
		.mtu = cpu_to_le16(mtu),
		.mask = cpu_to_le16(mask),
	};

	return kite_cmd_exec(kdev, KITE_CMD_OPCODE_SET_PORT, &in, sizeof(in),
			     NULL, 0);
}

int kite_set_port_info(struct kite_dev *kdev, struct kite_port_info *in)
{
	in->port = kdev->port;
	return kite_cmd_exec(kdev, KITE_CMD_OPCODE_SET_PORT, in, sizeof(*in),
			     NULL, 0);
}
