// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kite FPGA AI NIC: PCI function bring-up and teardown.
 *
 * Bring-up follows Documentation/hw/operation.rst: identify the function,
 * reset it and wait for the firmware, start the command ring, read the
 * limits, set up MSI-X and event queues, then the netdev, devlink and the
 * auxiliary RDMA device.
 */

#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "kite.h"

MODULE_DESCRIPTION("Kite FPGA AI NIC driver");
MODULE_LICENSE("GPL");

static const struct pci_device_id kite_pci_tbl[] = {
	{ PCI_DEVICE(KITE_VENDOR_ID, KITE_PF_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, kite_pci_tbl);

static int kite_check_identity(struct kite_dev *kdev)
{
	struct device *dev = kite_dev_dev(kdev);
	u32 magic, ver;

	magic = kite_rd32(kdev, KITE_REG_MAGIC);
	if (magic == 0xffffffff) {
		dev_err(dev, "device not responding (MAGIC reads 0xffffffff): function absent or link down\n");
		return -ENODEV;
	}
	if (magic != KITE_MAGIC) {
		dev_err(dev, "bad MAGIC 0x%08x (expected 0x%08x): not a Kite function\n",
			magic, KITE_MAGIC);
		return -ENODEV;
	}
	ver = kite_rd32(kdev, KITE_REG_SPEC_VERSION);
	if (FIELD_GET(KITE_REG_SPEC_VERSION_MAJOR, ver) != KITE_SPEC_MAJOR) {
		dev_err(dev, "card implements interface %lu.%lu, driver needs major %u\n",
			FIELD_GET(KITE_REG_SPEC_VERSION_MAJOR, ver),
			FIELD_GET(KITE_REG_SPEC_VERSION_MINOR, ver),
			KITE_SPEC_MAJOR);
		return -ENODEV;
	}
	kdev->hw_revision = kite_rd32(kdev, KITE_REG_HW_REVISION);
	kdev->fw_version = kite_rd32(kdev, KITE_REG_FW_VERSION);
	kdev->serial = (u64)kite_rd32(kdev, KITE_REG_SERIAL_HI) << 32 |
		       kite_rd32(kdev, KITE_REG_SERIAL_LO);
	kdev->func_info = kite_rd32(kdev, KITE_REG_FUNC_INFO);
	kdev->caps_reg = kite_rd32(kdev, KITE_REG_CAPS);
	kdev->db_pages = kite_rd32(kdev, KITE_REG_DB_PAGES);
	kdev->port = FIELD_GET(KITE_REG_FUNC_INFO_PORT, kdev->func_info);
	return 0;
}

static int kite_reset(struct kite_dev *kdev)
{
	struct device *dev = kite_dev_dev(kdev);
	u32 ctrl, status;
	int err;

	kite_wr32(kdev, KITE_REG_DEV_CTRL, KITE_REG_DEV_CTRL_RESET);
	err = readl_poll_timeout(kdev->regs + KITE_REG_DEV_CTRL, ctrl,
				 !(ctrl & KITE_REG_DEV_CTRL_RESET), 1000,
				 KITE_RESET_TIMEOUT_MS * USEC_PER_MSEC);
	if (err) {
		dev_err(dev, "reset did not complete within %u ms (DEV_CTRL 0x%x, DEV_STATUS 0x%x)\n",
			KITE_RESET_TIMEOUT_MS, ctrl,
			kite_rd32(kdev, KITE_REG_DEV_STATUS));
		return -ETIMEDOUT;
	}
	err = readl_poll_timeout(kdev->regs + KITE_REG_DEV_STATUS, status,
				 status & (KITE_REG_DEV_STATUS_READY |
					   KITE_REG_DEV_STATUS_FATAL), 1000,
				 KITE_RESET_TIMEOUT_MS * USEC_PER_MSEC);
	if (status & KITE_REG_DEV_STATUS_FATAL) {
		dev_err(dev, "card reports a fatal error after reset (HEALTH_SYNDROME %u)\n",
			kite_rd32(kdev, KITE_REG_HEALTH_SYNDROME));
		return -EIO;
	}
	if (err) {
		dev_err(dev, "firmware not ready %u ms after reset (DEV_STATUS 0x%x, HEARTBEAT %u)\n",
			KITE_RESET_TIMEOUT_MS, status,
			kite_rd32(kdev, KITE_REG_HEARTBEAT));
		return -ETIMEDOUT;
	}
	return 0;
}

static int kite_query_device(struct kite_dev *kdev)
{
	struct device *dev = kite_dev_dev(kdev);
	int err;

	err = kite_cmd_exec(kdev, KITE_CMD_OPCODE_QUERY_CAPS, NULL, 0,
			    &kdev->caps, sizeof(kdev->caps));
	if (err) {
		dev_err(dev, "QUERY_CAPS failed: %d\n", err);
		return err;
	}
	err = kite_cmd_exec(kdev, KITE_CMD_OPCODE_QUERY_FW, NULL, 0,
			    &kdev->fw, sizeof(kdev->fw));
	if (err) {
		dev_err(dev, "QUERY_FW failed: %d\n", err);
		return err;
	}
	kdev->fw.version_str[sizeof(kdev->fw.version_str) - 1] = 0;
	return kite_own_init(kdev);
}

static int kite_irq_init(struct kite_dev *kdev)
{
	struct device *dev = kite_dev_dev(kdev);
	u32 avail = kite_rd32(kdev, KITE_REG_MSIX_VECTORS);
	int want;

	if (kdev->caps.msix_vectors)
		avail = min_t(u32, avail, le16_to_cpu(kdev->caps.msix_vectors));
	/* Vector 0 is the async EQ; one completion EQ per possible channel. */
	want = min_t(u32, avail, 1 + KITE_MAX_CHANNELS);
	if (want < 2) {
		dev_err(dev, "function offers %u MSI-X vectors, need at least 2\n",
			avail);
		return -ENOSPC;
	}
	kdev->nvec = pci_alloc_irq_vectors(kdev->pdev, 2, want, PCI_IRQ_MSIX);
	if (kdev->nvec < 0) {
		dev_err(dev, "cannot enable MSI-X: %d\n", kdev->nvec);
		return kdev->nvec;
	}
	return 0;
}

static int kite_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	resource_size_t reg_len, db_len;
	struct kite_dev *kdev;
	int err;

	kdev = kite_devlink_alloc(dev);
	if (!kdev)
		return -ENOMEM;
	kdev->pdev = pdev;
	pci_set_drvdata(pdev, kdev);

	err = pci_enable_device_mem(pdev);
	if (err) {
		dev_err(dev, "cannot enable the PCI device: %d\n", err);
		goto err_free;
	}
	err = pci_request_regions(pdev, KITE_DRV_NAME);
	if (err) {
		dev_err(dev, "cannot claim the BARs: %d\n", err);
		goto err_disable;
	}
	pci_set_master(pdev);
	err = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(dev, "no usable 64-bit DMA: %d\n", err);
		goto err_release;
	}
	reg_len = pci_resource_len(pdev, KITE_REG_BAR);
	db_len = pci_resource_len(pdev, KITE_DB_BAR);
	if (reg_len < KITE_REG_BAR_SIZE || db_len < KITE_DB_PAGE_SIZE) {
		dev_err(dev, "BARs too small (BAR%u %pa, BAR%u %pa)\n",
			KITE_REG_BAR, &reg_len, KITE_DB_BAR, &db_len);
		err = -ENODEV;
		goto err_release;
	}
	kdev->regs = pci_iomap(pdev, KITE_REG_BAR, KITE_REG_BAR_SIZE);
	kdev->db = pci_iomap(pdev, KITE_DB_BAR, KITE_DB_PAGE_SIZE);
	if (!kdev->regs || !kdev->db) {
		dev_err(dev, "cannot map the BARs\n");
		err = -ENOMEM;
		goto err_unmap;
	}

	err = kite_check_identity(kdev);
	if (err)
		goto err_unmap;
	err = kite_reset(kdev);
	if (err)
		goto err_unmap;
	err = kite_cmd_init(kdev);
	if (err)
		goto err_unmap;
	err = kite_query_device(kdev);
	if (err)
		goto err_cmd;
	err = kite_irq_init(kdev);
	if (err)
		goto err_cmd;
	err = kite_eqs_init(kdev);
	if (err)
		goto err_irq;
	err = kite_netdev_init(kdev);
	if (err)
		goto err_eqs;
	kite_devlink_register(kdev);
	err = kite_aux_init(kdev);
	if (err)
		goto err_devlink;

	dev_info(dev, "Kite hw rev 0x%x, fw %u.%u.%u, serial %016llx, port %u, %u MSI-X vectors\n",
		 kdev->hw_revision,
		 (u32)FIELD_GET(KITE_REG_FW_VERSION_MAJOR, kdev->fw_version),
		 (u32)FIELD_GET(KITE_REG_FW_VERSION_MINOR, kdev->fw_version),
		 (u32)FIELD_GET(KITE_REG_FW_VERSION_PATCH, kdev->fw_version),
		 kdev->serial, kdev->port, kdev->nvec);
	return 0;

err_devlink:
	kite_devlink_unregister(kdev);
	kite_netdev_cleanup(kdev);
err_eqs:
	kite_eqs_cleanup(kdev);
err_irq:
	pci_free_irq_vectors(pdev);
err_cmd:
	/* A reset stops every DMA of the function before its memory goes. */
	kite_reset(kdev);
	kite_cmd_cleanup(kdev);
err_unmap:
	if (kdev->db)
		pci_iounmap(pdev, kdev->db);
	if (kdev->regs)
		pci_iounmap(pdev, kdev->regs);
err_release:
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
err_free:
	kite_devlink_free(kdev);
	return err;
}

static void kite_remove(struct pci_dev *pdev)
{
	struct kite_dev *kdev = pci_get_drvdata(pdev);

	kite_aux_cleanup(kdev);
	kite_devlink_unregister(kdev);
	kite_netdev_cleanup(kdev);
	kite_eqs_cleanup(kdev);
	pci_free_irq_vectors(pdev);
	kite_reset(kdev);
	kite_cmd_cleanup(kdev);
	pci_iounmap(pdev, kdev->db);
	pci_iounmap(pdev, kdev->regs);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	kite_devlink_free(kdev);
}

/* Reboot or kexec: stop every DMA of the function; nothing else matters. */
static void kite_shutdown(struct pci_dev *pdev)
{
	struct kite_dev *kdev = pci_get_drvdata(pdev);

	kite_wr32(kdev, KITE_REG_DEV_CTRL, KITE_REG_DEV_CTRL_RESET);
	pci_clear_master(pdev);
}

static struct pci_driver kite_pci_driver = {
	.name = KITE_DRV_NAME,
	.id_table = kite_pci_tbl,
	.probe = kite_probe,
	.remove = kite_remove,
	.shutdown = kite_shutdown,
};
module_pci_driver(kite_pci_driver);
