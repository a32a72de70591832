// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * QEMU TCG plugin for make bench: counts every guest instruction executed and
 * answers the running total on a Unix socket, so the host can read the count
 * before and after a transfer without stopping the VM (QEMU 7.2's stock
 * tests/plugin/insn.c only prints its total when QEMU exits).
 *
 *   qemu-system-x86_64 ... -smp 1 -plugin libkite_insn.so,sock=/path/insn.sock
 *   python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); \
 *               s.connect("/path/insn.sock"); print(s.recv(64))'
 *
 * Each connection gets one line, "<instructions>\n", and is closed.
 *
 * The count is an inline add per instruction (exact, no helper call). The
 * add is not atomic, so the plugin refuses guests with more than one vCPU
 * rather than lose updates under MTTCG.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t insns;
static struct sockaddr_un addr;
static int listen_fd = -1;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++)
		qemu_plugin_register_vcpu_insn_exec_inline(qemu_plugin_tb_get_insn(tb, i),
							   QEMU_PLUGIN_INLINE_ADD_U64,
							   &insns, 1);
}

static void *serve(void *arg)
{
	char line[32];
	int fd, len;

	(void)arg;
	for (;;) {
		fd = accept(listen_fd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;
		}
		len = snprintf(line, sizeof(line), "%" PRIu64 "\n",
			       __atomic_load_n(&insns, __ATOMIC_RELAXED));
		if (write(fd, line, len) != len)
			fprintf(stderr, "insn_count: short write: %s\n", strerror(errno));
		close(fd);
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	unlink(addr.sun_path);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	pthread_t thread;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "sock=", 5))
			path = argv[i] + 5;
		else {
			fprintf(stderr, "insn_count: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!path || strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "insn_count: need sock=PATH (shorter than %zu)\n", sizeof(addr.sun_path));
		return -1;
	}
	if (!info->system_emulation || info->system.max_vcpus != 1) {
		fprintf(stderr, "insn_count: needs system emulation with exactly one vCPU\n");
		return -1;
	}
	addr.sun_family = AF_UNIX;
	strcpy(addr.sun_path, path);
	unlink(path);
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(listen_fd, 4)) {
		fprintf(stderr, "insn_count: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (pthread_create(&thread, NULL, serve, NULL)) {
		fprintf(stderr, "insn_count: cannot start the socket thread\n");
		return -1;
	}
	pthread_detach(thread);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
