/* SPDX-License-Identifier: GPL-2.0-only */
/* Kite FPGA AI NIC: driver-internal definitions. */
#ifndef _KITE_H
#define _KITE_H

#include <linux/bitfield.h>
#include <linux/completion.h>
#include <linux/dim.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/interrupt.h>
#include <linux/kite/kite_aux.h>
#include <linux/kite/kite_hw.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#define KITE_DRV_NAME		"kite"

#define KITE_CMD_LOG_SIZE	4
#define KITE_CMD_TIMEOUT_MS	5000
#define KITE_RESET_TIMEOUT_MS	2000

#define KITE_ASYNC_EQ_LOG	8
#define KITE_COMP_EQ_LOG	7

#define KITE_DEF_CHANNELS	4
#define KITE_MAX_CHANNELS	16

#define KITE_DEF_RING_SIZE	512
#define KITE_MIN_RING_SIZE	64
#define KITE_MAX_RING_SIZE	8192

/* CQs are twice their queue: the card's view of the consumer index may lag
 * behind WQEs the driver already reposted.
 */
#define KITE_CQ_SLACK_LOG	1

/* One TX WQE holds ctrl + eth + up to MAX_GATHER entries: 512 bytes. */
#define KITE_SQ_LOG_STRIDE	9
#define KITE_TX_MAPS		(MAX_SKB_FRAGS + 1 < KITE_MAX_GATHER ? \
				 MAX_SKB_FRAGS + 1 : KITE_MAX_GATHER)

/* Largest frame the MAC accepts for an MTU: header, VLAN tag and FCS. */
#define KITE_RX_FRAME(mtu)	((mtu) + ETH_HLEN + VLAN_HLEN + KITE_FCS_LEN)
#define KITE_RX_HEADROOM	(NET_SKB_PAD + NET_IP_ALIGN)
#define KITE_RX_FIRST_LEN	(PAGE_SIZE - KITE_RX_HEADROOM - \
				 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))
#define KITE_RX_MAX_SGE		8

#define KITE_MAX_MAC_FILTERS	64

/* Interrupt moderation defaults (ethtool -C). */
#define KITE_DEF_RX_USECS	8
#define KITE_DEF_RX_FRAMES	32
#define KITE_DEF_TX_USECS	16
#define KITE_DEF_TX_FRAMES	64
#define KITE_MAX_MOD_USECS	4095
#define KITE_MAX_MOD_FRAMES	0xffff

/* ethtool -d: the register file up to SCRATCH, then the port counters. */
#define KITE_REGS_DUMP_WORDS	(KITE_REG_SCRATCH / 4 + 1)

struct kite_dev;
struct kite_priv;

struct kite_cmdq {
	struct kite_cmd_entry *ring;
	dma_addr_t dma;
	u16 pi;
	u32 token;
	u32 wait_token;
	bool use_events;
	struct mutex lock;		/* one command in flight */
	struct completion done;
	/* A DMA page for commands that take a buffer by address. */
	void *mbox;
	dma_addr_t mbox_dma;
	struct mutex mbox_lock;		/* owner of mbox */
};

struct kite_eq {
	struct kite_dev *kdev;
	struct kite_eqe *ring;
	dma_addr_t dma;
	u32 log_size;
	u32 ci;
	u32 eqn;
	u16 vector;
	int irq;
	bool irq_requested;
	struct kite_channel *ch;	/* completion EQs: the channel it serves */
	char name[48];
};

struct kite_cq {
	struct kite_cqe *ring;
	dma_addr_t dma;
	u32 log_size;
	u32 ci;
	u32 cqn;
};

struct kite_tx_buf {
	struct sk_buff *skb;
	u32 bytes;
	u16 pkts;
	u16 nr_maps;
	bool head_mapped;
	dma_addr_t dma[KITE_TX_MAPS];
	u32 len[KITE_TX_MAPS];
};

struct kite_tx_stats {
	u64 packets;
	u64 bytes;
	u64 csum;
	u64 tso;
	u64 linearize;
	u64 stopped;
	u64 wake;
	u64 dropped;
	u64 errors;
	u64 nofcs;
	u64 uso;
	u64 bad_gso;
	struct u64_stats_sync syncp;
};

struct kite_rx_stats {
	u64 packets;
	u64 bytes;
	u64 csum_ok;
	u64 csum_bad;
	u64 csum_complete;
	u64 multi_sge;
	u64 alloc_fail;
	u64 errors;
	struct u64_stats_sync syncp;
};

struct kite_txq {
	struct kite_channel *ch;
	struct device *dmadev;
	struct netdev_queue *ntxq;
	void *ring;
	dma_addr_t dma;
	u32 log_size;
	u32 mask;
	u32 pi;
	u32 ci;
	u32 sqn;
	void __iomem *db;
	struct kite_tx_buf *bufs;
	struct kite_cq cq;
};

struct kite_rxq {
	struct kite_channel *ch;
	struct device *dmadev;
	void *ring;
	dma_addr_t dma;
	u32 log_size;
	u32 log_stride;
	u32 mask;
	u32 pi;
	u32 ci;
	u32 rqn;
	u32 nsge;
	void __iomem *db;
	struct page **pages;		/* nsge per WQE */
	struct page_pool *pool;
	struct kite_cq cq;
};

struct kite_channel {
	struct kite_priv *priv;
	u32 idx;
	bool active;
	struct napi_struct napi;
	struct kite_eq *eq;
	struct kite_txq txq;
	struct kite_rxq rxq;
	struct kite_tx_stats tx_stats;
	struct kite_rx_stats rx_stats;
	struct dim rx_dim;		/* adaptive RX moderation */
	u16 dim_events;
};

struct kite_coal {
	u16 rx_usecs;
	u16 rx_frames;
	u16 tx_usecs;
	u16 tx_frames;
	bool rx_adaptive;
};

/* An additional RSS context (ethtool -X DEV context N): N is also the
 * card's context number on the port; context 0 lives in kite_priv.
 */
struct kite_rss_ctx {
	u32 indir[KITE_RSS_TABLE_SIZE];
	u8 key[KITE_RSS_KEY_SIZE];
};

struct kite_priv {
	struct net_device *netdev;
	struct kite_dev *kdev;
	struct device *dmadev;
	u8 port;
	u32 num_channels;
	u32 max_channels;
	u32 tx_ring_size;
	u32 rx_ring_size;
	bool hw_up;
	struct kite_channel *channels;
	u8 rss_key[KITE_RSS_KEY_SIZE];
	u32 rss_indir[KITE_RSS_TABLE_SIZE];
	u32 rss_id;
	bool rss_valid;
	u8 rss_fields;
	/* additional contexts; [0] unused. Programmed while hw_up. */
	struct kite_rss_ctx rss_ctx[KITE_MAX_RSS_CTX];
	DECLARE_BITMAP(rss_ctx_used, KITE_MAX_RSS_CTX);
	DECLARE_BITMAP(rss_ctx_hw, KITE_MAX_RSS_CTX);
	/* ethtool -N rules, by location; programmed while hw_up */
	struct ethtool_rx_flow_spec flows[KITE_MAX_FLOW_RULES];
	u16 flow_ctx[KITE_MAX_FLOW_RULES];	/* FLOW_RSS: its context */
	DECLARE_BITMAP(flows_used, KITE_MAX_FLOW_RULES);
	struct kite_coal coal;
	unsigned long active_vlans[BITS_TO_LONGS(VLAN_N_VID)];
	bool vlan_filter;		/* NETIF_F_HW_VLAN_CTAG_FILTER wanted */
	struct work_struct rx_mode_work;
	struct work_struct recover_work;
	struct mutex rx_mode_lock;	/* serialises the filter shadow */
	u8 rx_mode_flags;
	bool rx_mode_valid;
	u32 num_macs;
	u8 macs[KITE_MAX_MAC_FILTERS][ETH_ALEN];
};

struct kite_aux_events {
	const struct kite_aux_event_ops *ops;
	void *ctx;
};

/* Kinds of queue kite.ko creates for its netdev (see kite_dev.eth_own). */
enum kite_own_kind {
	KITE_OWN_CQ,
	KITE_OWN_SQ,
	KITE_OWN_RQ,
	KITE_OWN_NR,
};

struct kite_dev {
	struct pci_dev *pdev;
	struct devlink *devlink;
	void __iomem *regs;
	void __iomem *db;		/* kernel doorbell page (page 0) */
	u32 hw_revision;
	u32 fw_version;
	u64 serial;
	u32 func_info;
	u32 caps_reg;
	u32 db_pages;
	u8 port;
	/* PORT_CHANGE events seen; orders a QUERY_PORT answer against them */
	spinlock_t link_lock;
	u32 link_events;
	struct kite_caps_out caps;
	struct kite_fw_out fw;
	struct kite_cmdq cmd;
	int nvec;
	struct kite_eq async_eq;
	struct kite_eq *comp_eqs;
	u32 num_comp_eqs;
	struct net_device *netdev;
	/* Queue numbers kite.ko owns: an error event for any other queue
	 * belongs to kite_ib (a user's CQ), not to the netdev.
	 */
	unsigned long *eth_own[KITE_OWN_NR];
	u32 eth_own_bits[KITE_OWN_NR];
	struct kite_aux_dev *rdma_adev;
	struct kite_aux_events __rcu *aux_events;
	struct mutex aux_lock;		/* aux_events registration */
};

static inline struct device *kite_dev_dev(struct kite_dev *kdev)
{
	return &kdev->pdev->dev;
}

static inline u32 kite_rd32(struct kite_dev *kdev, u32 reg)
{
	return readl(kdev->regs + reg);
}

static inline void kite_wr32(struct kite_dev *kdev, u32 reg, u32 val)
{
	writel(val, kdev->regs + reg);
}

static inline u32 kite_db_val(u32 qn, u32 idx)
{
	return (qn << KITE_DB_QN_SHIFT) | (idx & KITE_DB_INDEX_MASK);
}

/* An EQE or CQE at free-running index @ci is new when its owner bit equals
 * the pass parity the card writes: 1 on the first pass, 0 on the second.
 */
static inline bool kite_owner_new(u8 owner, u32 ci, u32 log_size)
{
	return (owner & 1) == (((ci >> log_size) & 1) ^ 1);
}

/* kite_cmd.c */
#define KITE_CMD_QUIET	BIT(0)
int kite_cmd_init(struct kite_dev *kdev);
void kite_cmd_cleanup(struct kite_dev *kdev);
int kite_cmd_exec_flags(struct kite_dev *kdev, u16 opcode, const void *in,
			size_t in_len, void *out, size_t out_len,
			u32 *syndrome, u32 flags);
int kite_cmd_exec(struct kite_dev *kdev, u16 opcode, const void *in,
		  size_t in_len, void *out, size_t out_len);
void kite_cmd_event(struct kite_dev *kdev, u32 token);
void kite_cmd_use_events(struct kite_dev *kdev, bool on);
int kite_destroy_obj(struct kite_dev *kdev, u16 opcode, u32 id);
int kite_query_port(struct kite_dev *kdev, struct kite_port_info *info);
int kite_set_port(struct kite_dev *kdev, u16 mask, bool admin_up, u16 mtu);
int kite_set_port_info(struct kite_dev *kdev, struct kite_port_info *in);

/* kite_eq.c */
int kite_eqs_init(struct kite_dev *kdev);
void kite_eqs_cleanup(struct kite_dev *kdev);
int kite_cq_alloc(struct kite_dev *kdev, struct kite_cq *cq, u32 log_size,
		  u32 eqn);
void kite_cq_free(struct kite_dev *kdev, struct kite_cq *cq);
void kite_cq_arm(struct kite_dev *kdev, struct kite_cq *cq);
static inline struct kite_cqe *kite_cq_peek(struct kite_cq *cq)
{
	struct kite_cqe *cqe = &cq->ring[cq->ci & ((1U << cq->log_size) - 1)];

	if (!kite_owner_new(READ_ONCE(cqe->owner), cq->ci, cq->log_size))
		return NULL;
	/* Read the rest of the CQE only after seeing its owner bit. */
	dma_rmb();
	return cqe;
}

/* kite_netdev.c */
int kite_netdev_init(struct kite_dev *kdev);
void kite_netdev_cleanup(struct kite_dev *kdev);
void kite_netdev_port_event(struct kite_dev *kdev, u8 port, bool up);
void kite_netdev_queue_error(struct kite_dev *kdev);
int kite_reconfigure(struct kite_priv *priv, u32 channels, u32 tx_ring,
		     u32 rx_ring, int mtu);
int kite_query_port_stats(struct kite_priv *priv, struct kite_port_stats *st);
int kite_rss_set(struct kite_priv *priv);
int kite_rss_ctx_program(struct kite_priv *priv, u32 ctx);
void kite_rss_ctx_unprogram(struct kite_priv *priv, u32 ctx);
void kite_channel_stats(struct kite_priv *priv, u32 idx,
			struct kite_rx_stats *rx, struct kite_tx_stats *tx);
void kite_base_stats(struct kite_priv *priv, struct kite_rx_stats *rx,
		     struct kite_tx_stats *tx);
int kite_cq_moderate(struct kite_dev *kdev, struct kite_cq *cq, u16 usecs,
		     u16 frames);
int kite_apply_coalesce(struct kite_priv *priv);
void kite_dim_work(struct work_struct *work);

/* kite_txrx.c */
u32 kite_gso_hlen(const struct sk_buff *skb);
netdev_tx_t kite_start_xmit(struct sk_buff *skb, struct net_device *netdev);
int kite_napi_poll(struct napi_struct *napi, int budget);
int kite_rxq_fill(struct kite_rxq *rxq);
void kite_txq_drain(struct kite_txq *txq);
void kite_rxq_drain(struct kite_rxq *rxq);
u32 kite_rx_nsge(int mtu);

/* kite_ethtool.c */
void kite_set_ethtool_ops(struct net_device *netdev);
int kite_rxfh_get(struct net_device *netdev, u32 ctx, u32 *indir, u8 *key);
int kite_flows_install(struct kite_priv *priv);
void kite_flows_remove(struct kite_priv *priv);
int kite_rxfh_set(struct net_device *netdev, const u32 *indir, const u8 *key);
int kite_rss_ctx_alloc(struct net_device *netdev);
int kite_rss_ctx_create(struct net_device *netdev, u32 ctx, const u32 *indir,
			const u8 *key, struct netlink_ext_ack *extack);
int kite_rss_ctx_modify(struct net_device *netdev, u32 ctx, const u32 *indir,
			const u8 *key, struct netlink_ext_ack *extack);
int kite_rss_ctx_remove(struct net_device *netdev, u32 ctx,
			struct netlink_ext_ack *extack);

/* kite_devlink.c */
struct kite_dev *kite_devlink_alloc(struct device *dev);
void kite_devlink_free(struct kite_dev *kdev);
void kite_devlink_register(struct kite_dev *kdev);
void kite_devlink_unregister(struct kite_dev *kdev);

/* kite_aux.c */
int kite_aux_init(struct kite_dev *kdev);
void kite_aux_cleanup(struct kite_dev *kdev);
void kite_aux_dispatch_comp(struct kite_dev *kdev, u32 cqn);
int kite_own_init(struct kite_dev *kdev);
void kite_own_set(struct kite_dev *kdev, enum kite_own_kind kind, u32 id,
		  bool own);
bool kite_owns(struct kite_dev *kdev, enum kite_own_kind kind, u32 id);
void kite_aux_dispatch_event(struct kite_dev *kdev, const struct kite_eqe *eqe);

#endif /* _KITE_H */
