/* reference.c — the same sum of squares on the CPU, in C: a .c file stays C. */
double reference_sum_of_squares(int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++) sum += (double)(i % 7 + 1) * (i % 7 + 1);
    return sum;
}
