# A logical drive behind a MegaRAID SAS 2108 (QEMU's megasas-gen2, driver
# megaraid_sas, MFI interface).  Two CPUs, the other one reading sda2 with
# O_DIRECT through the block layer (throttled to 200 requests a second), so
# that its commands are on the controller at the panic: the dump's frame
# is the command megaraid_sas set aside, posted without hba_lock; its
# context is picked out of the reply queue, the others' are dropped; the
# controller's cache is flushed at the end.  sda2 must come out unchanged.
hba_busy megasas-gen2 "megaraid_sas 0000:00:18.0: command [0-9]+ set aside for crash dumps" "Avago SAS based MegaRAID driver"
